#!/bin/sh
# hakaru beside wrk, ab, oha and hey against a private nginx: see bench/peers.py for
# the knobs (DURATION, ROUNDS, CONNECTIONS, TOOLS, --no-keep-alive).
# Needs: apt-get install nginx wrk apache2-utils time python3
exec python3 "$(dirname "$0")/peers.py" "$@"
