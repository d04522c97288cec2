#!/bin/sh
# hakaru with --coalesce beside hakaru without it, against private nginx (h2c and
# HTTP/1.1): the closed model's req/s at 1, 10 and 100 clients on one connection and
# on many, and the open model's pacer lag and CPU a request: see bench/coalesce.py.
# Needs: apt-get install nginx time python3
exec python3 "$(dirname "$0")/coalesce.py" "$@"
