#!/bin/sh
# A 24-hour step's timelines on a simulated clock: the engine's own Ticker and
# coordinator (bench/rust/timeline_day.rs) fed a day of seconds, RSS printed every
# simulated hour. Arguments: HOURS (24), responses a simulated second (5000: each
# second's histogram as spread as a busy one's; its size depends on buckets used, not
# counts), labels (8, every one timed).
set -eu
cd "$(dirname "$0")/.."
cargo build --release --example timeline_day >/dev/null
exec target/release/examples/timeline_day "$@"
