#!/usr/bin/env bash
# Long fuzz runs of every parser that reads someone else's bytes (see src/fuzz.rs):
# a fixed number of executions per target, then executions and crashes per target.
#
#   bench/fuzz.sh                 # 10M executions of the wire parser, 1M of the others
#                                 # (the stream records and scenario targets: 100k, SLOW_RUNS)
#   WIRE_RUNS=1000 RUNS=1000 bench/fuzz.sh   # a smoke run
#   HAKARU_FUZZ=stdlib bench/fuzz.sh         # the stdlib harness even when cargo-fuzz exists
#
# With cargo-fuzz and a nightly toolchain it runs libFuzzer (coverage-guided, ASan);
# otherwise the stdlib harness (random and mutated inputs, release build). Crashes are
# left in fuzz/artifacts/TARGET/; each one found becomes a regression test named after
# the input (fuzz/regressions/, run by `cargo test fuzz`). Exit 1 when any target crashed.
set -euo pipefail
cd "$(dirname "$0")/.."

WIRE_RUNS=${WIRE_RUNS:-10000000}
RUNS=${RUNS:-1000000}
SLOW_RUNS=${SLOW_RUNS:-100000}
SEED=${SEED:-1}
TARGETS=(http_response patterns terms results scenario bulk_response stream_records expressions kv h2_frames)

runs_of() {
    case "$1" in
        http_response) echo "$WIRE_RUNS" ;;
        stream_records | scenario) echo "$SLOW_RUNS" ;;
        *) echo "$RUNS" ;;
    esac
}

engine=stdlib
if [ "${HAKARU_FUZZ:-}" != stdlib ] && cargo fuzz --version >/dev/null 2>&1 \
    && rustup toolchain list 2>/dev/null | grep -q '^nightly'; then
    engine=libfuzzer
fi
echo "fuzz engine: $engine"

crashed=0
if [ "$engine" = libfuzzer ]; then
    cargo build -q --example fuzz
    for t in "${TARGETS[@]}"; do
        n=$(runs_of "$t")
        corpus=fuzz/corpus/$t
        mkdir -p "$corpus" "fuzz/artifacts/$t"
        ./target/debug/examples/fuzz seeds "$t" "$corpus"
        before=$(find "fuzz/artifacts/$t" -type f | wc -l)
        log=$(mktemp)
        start=$(date +%s)
        # libFuzzer stops at the first crash; -runs bounds the rest.
        (cd fuzz && cargo +nightly fuzz run -O "$t" "corpus/$t" -- -runs="$n" -max_len=65536 \
            -seed="$SEED" >"$log" 2>&1) || true
        done_runs=$(grep -o 'Done [0-9]* runs' "$log" | grep -o '[0-9]*' | tail -1 || true)
        if [ -z "$done_runs" ]; then
            done_runs=$(grep -o '^#[0-9]*' "$log" | tr -d '#' | tail -1 || true)
        fi
        after=$(find "fuzz/artifacts/$t" -type f | wc -l)
        crashes=$((after - before))
        echo "$t: ${done_runs:-0} executions, $crashes crashes, $(( $(date +%s) - start )) s"
        if [ "$crashes" -gt 0 ]; then
            crashed=1
            grep -m3 -E 'panicked|ERROR: ' "$log" | sed 's/^/  /' || true
            find "fuzz/artifacts/$t" -type f -newer "$log" | sed 's/^/  crash: /'
        fi
        rm -f "$log"
    done
else
    cargo build -q --release --example fuzz
    for t in "${TARGETS[@]}"; do
        ./target/release/examples/fuzz "$t" "$(runs_of "$t")" "$SEED" || crashed=1
    done
fi
exit "$crashed"
