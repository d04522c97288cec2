#!/bin/sh
# hakaru's peak RSS, -n 100k against -n 10M at 100 clients, and with a patterns file of
# 1M lines: see bench/memory.py for the knobs (SMALL_N, BIG_N, CONNECTIONS, PATTERNS, SKIP_N,
# TARGET=nginx|serve).
# Needs: apt-get install nginx time python3
exec python3 "$(dirname "$0")/memory.py" "$@"
