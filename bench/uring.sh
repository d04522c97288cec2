#!/bin/sh
# io_uring against epoll for an HTTP/1.1 keep-alive load client (issue 22 item 4):
# wrk -t1, hakaru --threads 1 and bench/uring-probe's modes against one private nginx;
# see bench/uring.py for the knobs (DURATION, ROUNDS, CONNECTIONS, TOOLS, SYSCALLS).
# Needs: apt-get install nginx wrk time linux-perf python3; cargo for the probe.
exec python3 "$(dirname "$0")/uring.py" "$@"
