#!/bin/sh
# hakaru --http2 beside h2load against one private nginx speaking h2c, at equal
# connections x streams: see bench/h2.py for the knobs (DURATION, ROUNDS, SHAPES, THREADS).
# Needs: apt-get install nginx nghttp2-client time python3
exec python3 "$(dirname "$0")/h2.py" "$@"
