#!/bin/sh
# hakaru's pacer against the embedded target: asked vs achieved rate, queueing, late
# share and pacer lag, open model at 100 and 2000 req/s and closed --wait 1 ms.
# HAKARU_BEFORE=<older binary> puts its figures beside the new build's.
# See bench/pacing.py for the knobs (DURATION, ROUNDS, RATES, CLIENTS). Needs: python3
exec python3 "$(dirname "$0")/pacing.py" "$@"
