#!/bin/sh
# hakaru beside the SQL peers, in one run:
# - pgbench: hakaru pgbench beside Debian's pgbench 15 against one private
#   PostgreSQL 15: select-only (-S) and tpcb-like, -M prepared, at 1, 16 and 64
#   clients, rounds interleaved; medians of tps and client CPU per transaction, and
#   their ratios. See bench/sql.py for the knobs (ROUNDS, DURATION, SCALE, CLIENTS,
#   HAKARU, KEEP).
# - sysbench: hakaru sysbench beside Debian's sysbench 1.0.20 on one private
#   MariaDB 10.11 and one PostgreSQL 15: oltp_point_select and oltp_read_write at
#   1, 16 and 64 threads, the same figures. See bench/sysbench.py (ROUNDS, DURATION,
#   THREADS, TABLES, TABLE_SIZE, DBS, TESTS, HAKARU, KEEP).
# PARTS (pgbench,sysbench) picks the parts. Needs: python3, postgresql-15,
# mariadb-server, sysbench, time.
set -e
dir=$(dirname "$0")
for part in $(echo "${PARTS:-pgbench,sysbench}" | tr ',' ' '); do
  case $part in
    pgbench) python3 "$dir/sql.py" "$@" ;;
    sysbench) python3 "$dir/sysbench.py" "$@" ;;
    *) echo "sql.sh: PARTS: unknown part $part (pgbench, sysbench)" >&2; exit 2 ;;
  esac
done
