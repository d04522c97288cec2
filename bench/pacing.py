#!/usr/bin/env python3
"""hakaru's pacer: does a paced run send what was asked, on time?

Against an idle embedded target (`hakaru serve` on loopback), three loads:
  open model at each of RATES (`hakaru run --rate R -c CLIENTS -d DURATION`), and
  closed model `--wait 0.001 -c 1` (one client pausing 1 ms after each response).
Each runs ROUNDS times, interleaved, and the table shows medians over the rounds:
achieved req/s against the asked rate, response p50 minus service p50 (the queueing
the pacer adds in the open model), the share of requests sent late (> 1 ms after their
due time), the pacer's own lag (p50, p99, max) and hakaru's CPU time.

Targets, checked on each row's medians:
  rate:  achieved req/s within 5% of the asked rate (open model);
  pace:  closed model: achieved req/s within 5% of 1 / (wait + mean response time).
         `--wait` is drnbench's pause *after* each response, so one client cannot
         reach 1,000 req/s with a 1 ms pause unless the server answers in no time;
         what the pacer owes is the pause itself, exactly.
  gap:   response p50 - service p50 < 0.1 ms (open model);
  late:  fewer than 5% of the requests late (open model).

With HAKARU_BEFORE=<binary> the same loads also run with that (older) hakaru, in the
same rounds, and its rows sit under the new build's. A build without the pacer lag
in its result shows "-" there.

Environment: DURATION (s, default 4), ROUNDS (3), RATES (comma list, 100,2000),
CLIENTS (open model, 20), PAUSE (s between runs, 0.5), HAKARU (binary path),
HAKARU_BEFORE (older binary), KEEP=1 keeps the raw outputs. Flags: --help.
"""

import json
import os
import subprocess
import sys
import time

sys.dont_write_bytecode = True  # keep bench/ free of __pycache__
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402

RATE_TOLERANCE = 0.05
GAP_LIMIT_MS = 0.1
LATE_LIMIT = 0.05
# The closed model's pause: 1 ms after each response, so one client makes
# 1 / (1 ms + response time) requests/s when the pacer wakes on time.
WAIT_S = 0.001


def loads(rates, clients):
    """(label, file key, hakaru run arguments, asked req/s, open model?) per load."""
    out = []
    for rate in rates:
        # Plain numbers: older builds take nothing else for --rate.
        r = f"{rate:g}"
        out.append((f"open {r}/s -c {clients}", f"open{r}",
                    ["--rate", r, "-c", str(clients)], rate, True))
    out.append((f"closed --wait {WAIT_S:g} -c 1", "closed",
                ["--wait", f"{WAIT_S:g}", "-c", "1"], 1 / WAIT_S, False))
    return out


def version(binary):
    try:
        v = subprocess.run([binary, "--version"], capture_output=True, text=True).stdout.strip()
    except OSError:
        v = ""
    return v.splitlines()[0] if v else "?"


def ms(summary, key):
    return summary[key] * 1000 if summary else float("nan")


def measure(binary, url, args, dur, base):
    """One run; a dict of its figures (NaN where the build or the model has none)."""
    argv = [binary, "run"] + args + ["-d", f"{dur}s", "-o", base + ".json", url]
    nan = float("nan")
    row = dict(rc=None, rate=nan, gap=nan, late=nan, lag50=nan, lag99=nan, lagmax=nan, cpu=nan,
               paced=nan)
    with open(base + ".out", "wb") as out:
        try:
            row["rc"] = subprocess.run(argv, stdout=out, stderr=subprocess.STDOUT,
                                       timeout=dur + 60).returncode
        except subprocess.TimeoutExpired:
            row["rc"] = -1
    try:
        with open(base + ".json") as f:
            step = json.load(f)["steps"][0]
    except (OSError, ValueError, KeyError, IndexError) as e:
        print(f"  could not read {base}.json ({e}); see {base}.out (KEEP=1)")
        return row
    row["rate"] = step["responses"] / step["elapsed_s"] if step["elapsed_s"] else nan
    mean = step["latency"].get("mean_s", 0) if step.get("latency") else 0
    row["paced"] = 1 / (WAIT_S + mean) if mean else nan
    service = step.get("service")
    if service:
        row["gap"] = ms(step["latency"], "p50_s") - ms(service, "p50_s")
        row["late"] = step["late"] / step["total_requests"] if step["total_requests"] else nan
    lag = step.get("pacer_lag")
    row["lag50"], row["lag99"], row["lagmax"] = (ms(lag, k) for k in ("p50_s", "p99_s", "max_s"))
    row["cpu"] = step.get("client_cpu_s", nan)
    return row


def verdicts(s, asked, open_model):
    """PASS/FAIL per target that applies to this load, from the medians."""
    out = []
    if open_model:
        ratio = s["rate"] / asked
        out.append(("rate", ratio == ratio and abs(ratio - 1) <= RATE_TOLERANCE))
    else:
        ratio = s["rate"] / s["paced"]
        out.append(("pace", ratio == ratio and abs(ratio - 1) <= RATE_TOLERANCE))
    if open_model:
        out.append(("gap", s["gap"] == s["gap"] and s["gap"] < GAP_LIMIT_MS))
        out.append(("late", s["late"] == s["late"] and s["late"] < LATE_LIMIT))
    return out


def pct(v):
    return "-" if v != v else f"{v * 100:.1f}%"


def main():
    if "-h" in sys.argv[1:] or "--help" in sys.argv[1:]:
        print(__doc__.strip())
        return 0
    if sys.argv[1:]:
        common.die(f"unknown argument {sys.argv[1]!r} (see --help)")
    dur = common.env_number("DURATION", 4, int)
    rounds = common.env_number("ROUNDS", 3, int)
    clients = common.env_number("CLIENTS", 20, int)
    pause = common.env_number("PAUSE", 0.5)
    try:
        rates = [float(r) for r in os.environ.get("RATES", "100,2000").split(",") if r.strip()]
    except ValueError:
        common.die(f"RATES={os.environ['RATES']!r}: a comma list of numbers, e.g. 100,2000")
    if not rates or any(r <= 0 for r in rates):
        common.die("RATES: give at least one positive rate")

    builds = {"new": common.hakaru_binary()}
    before = os.environ.get("HAKARU_BEFORE")
    if before:
        if not os.access(before, os.X_OK):
            common.die(f"HAKARU_BEFORE={before} is not an executable")
        builds["before"] = before
    work = common.Workdir("hakaru-pacing-").path
    server = common.Serve(builds["new"], work)
    cases = loads(rates, clients)

    print("# hakaru's pacer: asked against achieved, on an idle embedded target\n")
    print(f"machine: {common.machine_line()}")
    print(f"target: hakaru serve (from the new build) at {server.url}, idle, loopback")
    for name, b in builds.items():
        print(f"{name}: {b} ({version(b)})")
    print(f"\n## {dur} s per run, {rounds} rounds\n")

    names = list(builds)
    runs = {(key, name): [] for _, key, _, _, _ in cases for name in names}
    for r in range(rounds):
        for label, key, args, asked, _ in cases:
            # Builds alternate who goes first, so a slow drift of the machine hits both.
            order = names[r % len(names):] + names[: r % len(names)]
            for name in order:
                base = os.path.join(work, f"{key}-{name}-r{r + 1}")
                row = measure(builds[name], server.url, args, dur, base)
                runs[(key, name)].append(row)
                print(f"  round {r + 1}/{rounds}  {label:<24} {name:<6}"
                      f" {common.fmt(row['rate'], '8.1f')} req/s"
                      f" ({common.fmt(row['rate'] / asked, '.3f')}x)"
                      f"  gap {common.fmt(row['gap'], '.3f')} ms  late {pct(row['late'])}"
                      f"  lag p50/p99/max {common.fmt(row['lag50'], '.3f')}/"
                      f"{common.fmt(row['lag99'], '.3f')}/{common.fmt(row['lagmax'], '.3f')} ms"
                      f"  CPU {common.fmt(row['cpu'], '.2f')} s"
                      + (f"  (exit {row['rc']})" if row["rc"] != 0 else ""), flush=True)
                if not server.alive():
                    common.die("hakaru serve died during the run")
                time.sleep(pause)

    print(f"\nMedians over {rounds} rounds ({dur} s runs; gap = response p50 − service p50; "
          "lag and gap in ms; max = the median of each run's max):\n")
    print("| load | build | asked req/s | achieved req/s | ÷ asked | gap ms | late "
          "| lag p50 | lag p99 | lag max | client CPU s | targets |")
    print("|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|")
    failed = []
    for label, key, _, asked, open_model in cases:
        for name in names:
            rows = runs[(key, name)]
            s = {k: common.median([row[k] for row in rows])
                 for k in ("rate", "gap", "late", "lag50", "lag99", "lagmax", "cpu", "paced")}
            checks = verdicts(s, asked, open_model)
            if name == "new":
                failed += [f"{label}: {t}" for t, ok in checks if not ok]
            print(f"| {label} | {name} | {asked:g} | {common.fmt(s['rate'], '.1f')} "
                  f"| {common.fmt(s['rate'] / asked, '.3f')} | {common.fmt(s['gap'], '.3f')} "
                  f"| {pct(s['late'])} | {common.fmt(s['lag50'], '.3f')} "
                  f"| {common.fmt(s['lag99'], '.3f')} | {common.fmt(s['lagmax'], '.3f')} "
                  f"| {common.fmt(s['cpu'], '.2f')} "
                  f"| {', '.join(f'{t} ' + ('PASS' if ok else 'FAIL') for t, ok in checks)} |")
    print(f"\ntargets: rate = achieved within {RATE_TOLERANCE:.0%} of asked (open model); "
          f"pace = achieved within {RATE_TOLERANCE:.0%} of 1 / (wait + mean response) "
          f"(closed model); "
          f"gap = response p50 − service p50 < {GAP_LIMIT_MS} ms (open model); "
          f"late = under {LATE_LIMIT:.0%} of requests sent > 1 ms after due (open model)")
    print("new build: " + ("all targets PASS" if not failed else "FAIL: " + "; ".join(failed)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
