#!/bin/sh
# hakaru beside redis-benchmark (Debian's redis-tools) against one private
# redis-server at equal connections and pipeline 1 and 16, and alone against memcached
# (memtier_benchmark is not packaged): operations/s and client CPU per operation,
# medians and per-round ratios. See bench/kv.py for the knobs (N, CONNECTIONS,
# ROUNDS, HAKARU). Needs: python3, redis-server, redis-tools, memcached, time.
exec python3 "$(dirname "$0")/kv.py" "$@"
