#!/bin/sh
# hakaru pgbench beside Debian's pgbench 15 against one private PostgreSQL 15:
# select-only (-S) and tpcb-like, -M prepared, at 1, 16 and 64 clients, rounds
# interleaved; medians of tps and client CPU per transaction, and their ratios.
# See bench/sql.py for the knobs (ROUNDS, DURATION, SCALE, CLIENTS, HAKARU, KEEP).
# Needs: python3, postgresql-15, time.
exec python3 "$(dirname "$0")/sql.py" "$@"
