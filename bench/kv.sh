#!/bin/sh
# hakaru beside redis-benchmark (Debian's redis-tools) against one private
# redis-server at equal connections and pipeline 1 and 16, and against memcached;
# beside memtier_benchmark too when MEMTIER=/path names one (it is not packaged:
# bench/kv.py says how it was built, outside the repository): operations/s and
# client CPU per operation, medians and per-round ratios. See bench/kv.py for the
# knobs (N, CONNECTIONS, ROUNDS, PIPELINES, HAKARU, MEMTIER).
# Needs: python3, redis-server, redis-tools, memcached, time.
exec python3 "$(dirname "$0")/kv.py" "$@"
