#!/usr/bin/env python3
"""The embedded target's calibration endpoints: does `/delay/N` answer in N ms?

`hakaru serve` promises deterministic answers: `/delay/N` after N ms and `/work?ms=N`
after N ms of an idle worker. One client (`hakaru run -c 1 -d DURATION`) asks each
endpoint in turn, ROUNDS times interleaved; the table shows the median over the rounds
of the response p50 minus N (what the target added, plus the loopback round trip that
`/delay/0` shows alone).

Target: p50 - N under 0.1 ms for every endpoint (issue: the answers were 1.1 ms slow
on tokio's millisecond timer). A busy machine wakes threads late; run it quiet.

Environment: DURATION (s, default 3), ROUNDS (3), HAKARU (binary path), KEEP=1 keeps
the raw outputs. Flags: --help.
"""

import json
import os
import subprocess
import sys

sys.dont_write_bytecode = True  # keep bench/ free of __pycache__
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402

LIMIT_MS = 0.1
ENDPOINTS = [("delay/0", 0.0), ("delay/1", 1.0), ("delay/5", 5.0), ("work?ms=2", 2.0)]


def p50_ms(binary, url, dur, base):
    argv = [binary, "run", "-c", "1", "-d", f"{dur}s", "-o", base + ".json", url]
    with open(base + ".out", "wb") as out:
        subprocess.run(argv, stdout=out, stderr=subprocess.STDOUT, timeout=dur + 60)
    with open(base + ".json") as f:
        return json.load(f)["steps"][0]["latency"]["p50_s"] * 1000


def main():
    if "-h" in sys.argv[1:] or "--help" in sys.argv[1:]:
        print(__doc__.strip())
        return 0
    dur = common.env_number("DURATION", 3, int)
    rounds = common.env_number("ROUNDS", 3, int)
    binary = common.hakaru_binary()
    work = common.Workdir("hakaru-delay-").path
    server = common.Serve(binary, work)
    print("# the embedded target's delays: response p50 - N, one client\n")
    print(common.machine_line())
    extra = {path: [] for path, _ in ENDPOINTS}
    for r in range(rounds):
        for path, n in ENDPOINTS:
            base = os.path.join(work, f"{path.replace('/', '_').replace('?', '_')}-{r}")
            extra[path].append(p50_ms(binary, server.url + path, dur, base) - n)
    print(f"\n| endpoint | p50 - N (ms), median of {rounds} | target < {LIMIT_MS} ms |")
    print("|---|--:|---|")
    ok = True
    for path, _ in ENDPOINTS:
        m = common.median(extra[path])
        ok &= m < LIMIT_MS
        print(f"| /{path} | {m:.3f} | {'PASS' if m < LIMIT_MS else 'FAIL'} |")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
