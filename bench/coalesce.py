"""hakaru with --coalesce beside hakaru without it, in one run, against private nginx.

Closed model (issue 32: the flag must not quietly lower the load): at 1, 10 and 100
clients, on one connection (h2c, --http2 --streams N) and on many (HTTP/1.1, a
connection each), req/s with the flag ÷ req/s without, and CPU a request with ÷
without. Open model: --rate RATE over 100 HTTP/1.1 clients, the pacer's lag p99
(how late requests left against the timetable) and CPU a request, with and without.
Rounds alternate the two; the table prints medians of the per-round ratios.

Knobs (environment): DURATION seconds per run (3), ROUNDS (3), THREADS (1),
COALESCE (the flag's bound, 500us), RATE (open model, requests/s, 5000),
HAKARU (the binary; target/release/hakaru by default), KEEP=1 keeps the raw outputs.
"""

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402


def hakaru_argv(binary, url, clients, http2, rate, dur, threads, coalesce, out):
    argv = [binary, "run", "-c", str(clients), "-d", f"{dur}s", "--threads", str(threads),
            "-o", out]
    if http2:
        argv += ["--http2", "--streams", str(clients)]
    if rate:
        argv += ["--rate", str(rate)]
    if coalesce:
        argv += ["--coalesce", coalesce]
    return argv + [url]


def one(binary, url, clients, http2, rate, dur, threads, coalesce, base):
    argv = hakaru_argv(binary, url, clients, http2, rate, dur, threads, coalesce, base + ".json")
    rc, _, cpu, _, _ = common.timed_run(argv, base + ".out", base + ".time", timeout=dur * 3 + 30)
    try:
        with open(base + ".json") as f:
            step = json.load(f)["steps"][0]
    except (OSError, ValueError, KeyError, IndexError):
        return dict(rps=float("nan"), us=float("nan"), lag=float("nan"), pauses=0)
    ok = step["responses"]
    lag = (step.get("pacer_lag") or {}).get("p99_s", float("nan"))
    pauses = (step.get("coalesce") or {}).get("pauses", 0)
    return dict(rps=step["qps"], us=cpu / ok * 1e6 if ok else float("nan"), lag=lag * 1e3,
                pauses=pauses, rc=rc)


def main():
    if len(sys.argv) > 1:
        print(__doc__)
        sys.exit(0 if sys.argv[1] in ("-h", "--help") else 2)
    dur = common.env_number("DURATION", 3, int)
    rounds = common.env_number("ROUNDS", 3, int)
    threads = common.env_number("THREADS", 1, int)
    rate = common.env_number("RATE", 5000, int)
    coalesce = os.environ.get("COALESCE", "500us")
    hakaru = common.hakaru_binary()
    work = common.Workdir("hakaru-coalesce-bench-")
    h2 = common.Nginx(os.path.join(work.path, "h2"), listen_flags="http2")
    h1 = common.Nginx(os.path.join(work.path, "h1"))
    print(f"# hakaru --coalesce {coalesce} ÷ hakaru without, nginx ({h1.version}), {dur} s runs, "
          f"{rounds} rounds, {threads} client thread(s)")
    print(f"# {common.machine_line()}")
    cases = [(f"{n} on one h2c connection", h2.url + "index.html", n, True, None)
             for n in (1, 10, 100)]
    cases += [(f"{n} on {n} HTTP/1.1 connections", h1.url + "index.html", n, False, None)
              for n in (1, 10, 100)]
    cases += [(f"open model, {rate}/s over 100 HTTP/1.1", h1.url + "index.html", 100, False, rate)]
    print()
    print("| clients | req/s with ÷ without | CPU/req with ÷ without | pauses (with) "
          "| pacer lag p99 ms (with, without) |")
    print("|---|--:|--:|--:|--:|")
    for name, url, clients, http2, r in cases:
        runs = {"with": [], "without": []}
        for k in range(rounds):
            order = ["with", "without"] if k % 2 == 0 else ["without", "with"]
            for side in order:
                base = os.path.join(work.path, f"{clients}-{http2}-{r}-{side}-{k}")
                runs[side].append(one(hakaru, url, clients, http2, r, dur, threads,
                                      coalesce if side == "with" else None, base))
        pairs = list(zip(runs["with"], runs["without"]))
        rps = common.median([a["rps"] / b["rps"] for a, b in pairs if b["rps"]])
        us = common.median([a["us"] / b["us"] for a, b in pairs if b["us"]])
        pauses = common.median([a["pauses"] for a in runs["with"]])
        lag = (common.median([a["lag"] for a in runs["with"]]),
               common.median([b["lag"] for b in runs["without"]]))
        lag_text = f"{common.fmt(lag[0], '.3f')}, {common.fmt(lag[1], '.3f')}" if r else "-"
        print(f"| {name} | {common.fmt(rps, '.3f')} | {common.fmt(us, '.2f')} "
              f"| {common.fmt(pauses, '.0f')} | {lag_text} |", flush=True)
        if not (h1.alive() and h2.alive()):
            common.die("nginx died during the run")


if __name__ == "__main__":
    main()
