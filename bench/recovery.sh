#!/bin/sh
# Issue 32 item 5: does a suite report a stopped-and-continued service as recovered,
# run after run, on a loaded machine? Each run: `hakaru serve` on loopback, a suite of
# 12 s at 200 req/s against its /delay/0, SIGSTOP to the server at 3 s and SIGCONT at
# 5 s (it answers in full again from 6 s), default recovery criteria (hold 5 s). Prints
# each run's two recovery lines and how many of RUNS reported both events recovered.
#
# Arguments: RUNS (20), LOAD (2: busy loops of our own, started and stopped by PID,
# beside whatever else the machine runs). HAKARU names the binary (default: the debug
# build, copied aside so a rebuild while it runs does not pull it away).
set -eu
cd "$(dirname "$0")/.."
RUNS=${1:-20}
LOAD=${2:-2}
DIR=$(mktemp -d /tmp/hakaru-recovery.XXXXXX)
if [ -z "${HAKARU:-}" ]; then
    cargo build -q
    cp target/debug/hakaru "$DIR/hakaru"
    HAKARU="$DIR/hakaru"
fi
HOGS=""
cleanup() {
    for p in $HOGS; do kill "$p" 2>/dev/null || true; done
    [ -n "${SERVE:-}" ] && kill -CONT "$SERVE" 2>/dev/null && kill "$SERVE" 2>/dev/null
    true
}
trap cleanup EXIT INT TERM
i=0
while [ "$i" -lt "$LOAD" ]; do
    sh -c 'while :; do :; done' &
    HOGS="$HOGS $!"
    i=$((i + 1))
done
recovered=0
KEEP=""
run=1
while [ "$run" -le "$RUNS" ]; do
    "$HAKARU" serve --bind 127.0.0.1:0 >"$DIR/serve.log" 2>&1 &
    SERVE=$!
    port=""
    for _ in $(seq 50); do
        port=$(grep -o '127\.0\.0\.1:[0-9]*' "$DIR/serve.log" | head -1 | cut -d: -f2 || true)
        [ -n "$port" ] && break
        sleep 0.1
    done
    cat >"$DIR/stop.toml" <<EOF
[targets.server]
pid = $SERVE

[[phase]]
name = "steady"
duration = "12s"
rate = 200
[[phase.workload]]
url = "http://127.0.0.1:$port/delay/0"

[[event]]
name = "stop"
at = "3s"
run = "kill -STOP {pid:server}"
[[event]]
name = "continue"
at = "5s"
run = "kill -CONT {pid:server}"
EOF
    "$HAKARU" suite "$DIR/stop.toml" -q -o "$DIR/r.csv" >"$DIR/out.txt" 2>&1 || true
    kill -CONT "$SERVE" 2>/dev/null || true
    kill "$SERVE" 2>/dev/null || true
    wait "$SERVE" 2>/dev/null || true
    SERVE=""
    lines=$(grep -E 'recover' "$DIR/out.txt" || true)
    n=$(printf '%s\n' "$lines" | grep -c 'recovered in' || true)
    echo "run $run:"
    printf '%s\n' "$lines" | sed 's/^ */  /'
    if [ "$n" -eq 2 ]; then
        recovered=$((recovered + 1))
    else
        # Kept for a look: the run's whole output and result.
        cp "$DIR/out.txt" "$DIR/run-$run.txt"
        cp "$DIR/r.json" "$DIR/run-$run.json" 2>/dev/null || true
        KEEP=1
    fi
    run=$((run + 1))
done
echo "both events recovered in $recovered of $RUNS runs (load: $LOAD busy loops)"
if [ -n "$KEEP" ]; then
    echo "the other runs' output and results: $DIR/run-*"
else
    rm -rf "$DIR"
fi
