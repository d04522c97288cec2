#!/bin/sh
# hakaru's peak RSS, -n 100k against -n 10M at 100 clients: see bench/memory.py for the
# knobs (SMALL_N, BIG_N, CONNECTIONS, TARGET=nginx|serve).
# Needs: apt-get install nginx time python3
exec python3 "$(dirname "$0")/memory.py" "$@"
