#!/bin/sh
# The embedded target's /delay/N and /work?ms=N against N: response p50 - N, one client.
# See bench/delay.py for the knobs (DURATION, ROUNDS, HAKARU). Needs: python3
exec python3 "$(dirname "$0")/delay.py" "$@"
