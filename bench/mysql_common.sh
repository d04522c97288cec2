#!/bin/sh
# hakaru's MySQL fold (bench/rust/mysql_fold.rs, sql::mysql) beside the mysql_common
# crate's (bench/mysql_common/, a crate of its own so hakaru never links it) on the
# same answers: ns and allocations an answer, at 1 row and at ROWS rows an answer.
# Environment: ROUNDS (1000000), ROWS (100).
set -eu
cd "$(dirname "$0")/.."
ROUNDS=${ROUNDS:-1000000}
ROWS=${ROWS:-100}
cargo build -q --release --example mysql_fold
cargo build -q --release --manifest-path bench/mysql_common/Cargo.toml
for rows in 1 "$ROWS"; do
  n=$ROUNDS
  [ "$rows" -gt 1 ] && n=$((ROUNDS / rows))
  echo "== $rows row(s) an answer, $n answers"
  printf 'hakaru sql::mysql  '; target/release/examples/mysql_fold "$n" "$rows" | paste -sd' '
  printf 'mysql_common 0.38  '; bench/mysql_common/target/release/hakaru-bench-mysql-common "$n" "$rows" | paste -sd' '
done
