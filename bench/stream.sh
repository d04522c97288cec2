#!/bin/sh
# hakaru stream send against cat into a file, 10-byte and 4 KiB records, and watch's CPU
# with and without --verify: see bench/stream.py for the knobs (DIR, SMALL_N, BIG_N, RUNS).
# Needs: apt-get install time python3
exec python3 "$(dirname "$0")/stream.py" "$@"
