#!/usr/bin/env python3
"""hakaru side by side with wrk, ab, oha and hey against one private nginx.

Every tool hits the same small static file with the same connections and duration,
in several interleaved rounds (order rotated each round) so slow drifts of a shared
machine fall on every tool alike. Per run it takes requests/s from the tool's own
output and the client's user+sys CPU and peak RSS from /usr/bin/time, then prints
medians across rounds and, per round, ratios against wrk.

Environment: DURATION (s, default 10), ROUNDS (3), CONNECTIONS (50), PAUSE (s between
runs, 1), TOOLS (comma list; default hakaru,wrk,ab,oha,hey; `hakaru-t1` adds hakaru
with --threads 1; `hakaru-before` and `hakaru-before-t1` run the binary at
HAKARU_BEFORE, an older build, the same ways; `hakaru-coalesce` and
`hakaru-t1-coalesce` add `--coalesce COALESCE`, default 200us), HAKARU (binary
path), KEEP=1 keeps the raw outputs.
Flags: --no-keep-alive also runs a section with keep-alive off; --help.
"""

import json
import os
import re
import subprocess
import sys
import time

sys.dont_write_bytecode = True  # keep bench/ free of __pycache__
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402

DEFAULT_TOOLS = "hakaru,wrk,ab,oha,hey"
KNOWN_TOOLS = ("hakaru", "hakaru-t1", "hakaru-coalesce", "hakaru-t1-coalesce", "hakaru-before",
               "hakaru-before-t1", "wrk", "ab", "oha", "hey")


def before_binary():
    """The older build named by HAKARU_BEFORE, to set beside the current one."""
    path = os.environ.get("HAKARU_BEFORE")
    if not path:
        common.die("TOOLS names hakaru-before: set HAKARU_BEFORE to the older binary")
    if not os.access(path, os.X_OK):
        common.die(f"HAKARU_BEFORE={path} is not an executable")
    return path


def hakaru_argv(binary, threads, coalesce=None):
    def argv(url, dur, conns, keep_alive, out_base):
        a = [binary, "run", "-c", str(conns), "-d", f"{dur}s"]
        a.append("-k" if keep_alive else "--no-keep-alive")
        if threads:
            a += ["--threads", str(threads)]
        if coalesce:
            a += ["--coalesce", coalesce]
        return a + ["-o", out_base + ".csv", url]

    return argv


def parse_hakaru(text, out_base):
    with open(out_base + ".json") as f:
        step = json.load(f)["steps"][0]
    return step["responses"], step["qps"], sum(step["errors"].values())


def wrk_argv(binary):
    def argv(url, dur, conns, keep_alive, out_base):
        # wrk has no switch for keep-alive; asking the server to close is the usual way.
        extra = [] if keep_alive else ["-H", "Connection: close"]
        return [binary, "-t2", f"-c{conns}", f"-d{dur}s"] + extra + [url]

    return argv


def parse_wrk(text, out_base):
    n = int(re.search(r"(\d+) requests in", text).group(1))
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", text).group(1))
    errors = 0
    m = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", text)
    if m:
        errors += sum(int(x) for x in m.groups())
    m = re.search(r"Non-2xx or 3xx responses: (\d+)", text)
    if m:
        errors += int(m.group(1))
    return n, rps, errors


def ab_argv(binary):
    def argv(url, dur, conns, keep_alive, out_base):
        # With -t, ab caps the run at 50000 requests unless -n (given after -t) is larger.
        a = [binary] + (["-k"] if keep_alive else [])
        return a + ["-c", str(conns), "-t", str(dur), "-n", "100000000", url]

    return argv


def parse_ab(text, out_base):
    n = int(re.search(r"Complete requests:\s+(\d+)", text).group(1))
    rps = float(re.search(r"Requests per second:\s+([\d.]+)", text).group(1))
    errors = int(re.search(r"Failed requests:\s+(\d+)", text).group(1))
    m = re.search(r"Non-2xx responses:\s+(\d+)", text)
    if m:
        errors += int(m.group(1))
    return n, rps, errors


def oha_argv(binary):
    def argv(url, dur, conns, keep_alive, out_base):
        extra = [] if keep_alive else ["--disable-keepalive"]
        return [binary, "-z", f"{dur}s", "-c", str(conns), "--no-tui"] + extra + [url]

    return argv


def hey_argv(binary):
    def argv(url, dur, conns, keep_alive, out_base):
        extra = [] if keep_alive else ["-disable-keepalive"]
        return [binary, "-z", f"{dur}s", "-c", str(conns)] + extra + [url]

    return argv


def parse_oha_hey(text, out_base):
    # Both print "Requests/sec:", a status code distribution and an error distribution.
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", text).group(1))
    n = sum(int(c) for c in re.findall(r"\[\d{3}\]\s+(\d+) responses", text))
    errors = 0
    tail = text.split("Error distribution:", 1)
    if len(tail) == 2:
        errors = sum(int(c) for c in re.findall(r"^\s*\[(\d+)\]", tail[1], re.M))
    return n, rps, errors


def tool_versions(tools):
    out = []
    for name, t in tools.items():
        b = t["binary"]
        try:
            if name.startswith("hakaru"):
                v = subprocess.run([b, "--version"], capture_output=True, text=True).stdout
            elif name == "wrk":
                v = subprocess.run([b, "-v"], capture_output=True, text=True).stdout
            elif name == "ab":
                v = subprocess.run([b, "-V"], capture_output=True, text=True).stdout
            elif name == "oha":
                v = subprocess.run([b, "--version"], capture_output=True, text=True).stdout
            else:
                v = "hey (no --version)"
        except OSError:
            v = "?"
        line = v.strip().splitlines()[0] if v.strip() else "?"
        out.append(f"{name}: {line}")
    return out


def build_tools():
    wanted = [t.strip() for t in os.environ.get("TOOLS", DEFAULT_TOOLS).split(",") if t.strip()]
    for t in wanted:
        if t not in KNOWN_TOOLS:
            common.die(f"TOOLS: unknown tool {t!r} (known: {', '.join(KNOWN_TOOLS)})")
    if "wrk" not in wanted:
        common.die("TOOLS must include wrk: every ratio is against wrk")
    tools = {}
    for name in wanted:
        if name.startswith("hakaru"):
            b = before_binary() if name.startswith("hakaru-before") else common.hakaru_binary()
            threads = 1 if "-t1" in name else None
            coalesce = os.environ.get("COALESCE", "200us") if name.endswith("-coalesce") else None
            tools[name] = dict(binary=b, argv=hakaru_argv(b, threads, coalesce),
                               parse=parse_hakaru)
            continue
        b = common.find_tool(name)
        if b is None:
            if name in ("oha", "hey"):
                print(f"note: {name} not installed, skipped", file=sys.stderr)
                continue
            common.die(f"{name} not found: apt-get install nginx wrk apache2-utils")
        makers = dict(wrk=(wrk_argv, parse_wrk), ab=(ab_argv, parse_ab),
                      oha=(oha_argv, parse_oha_hey), hey=(hey_argv, parse_oha_hey))
        make, parse = makers[name]
        tools[name] = dict(binary=b, argv=make(b), parse=parse)
    return tools


def run_section(title, tools, nginx, work, keep_alive, dur, rounds, conns, pause):
    print(f"\n## {title}: {conns} connections, {dur} s per run, {rounds} rounds\n")
    names = list(tools)
    runs = {n: [] for n in names}  # per tool: list of dicts, one per round
    for r in range(rounds):
        order = names[r % len(names):] + names[: r % len(names)]
        for name in order:
            t = tools[name]
            base = os.path.join(work, f"{'ka' if keep_alive else 'close'}-{name}-r{r + 1}")
            argv = t["argv"](nginx.url, dur, conns, keep_alive, base)
            cpu0, t0 = nginx.cpu_seconds(), time.monotonic()
            rc, text, cpu, rss_kb, wall = common.timed_run(
                argv, base + ".out", base + ".time", timeout=dur + 60)
            server_share = (nginx.cpu_seconds() - cpu0) / max(time.monotonic() - t0, 1e-9)
            row = dict(round=r + 1, rc=rc, cpu=cpu, rss_mb=rss_kb / 1024, server=server_share)
            try:
                n, rps, errors = t["parse"](text, base)
                row.update(n=n, rps=rps, errors=errors)
                row["cpu100k"] = cpu / n * 100000 if n else float("nan")
            except (AttributeError, OSError, ValueError, KeyError, IndexError) as e:
                row.update(n=0, rps=float("nan"), errors=float("nan"), cpu100k=float("nan"))
                print(f"  could not read {name}'s output ({e}); see {base}.out (KEEP=1)")
            runs[name].append(row)
            print(f"  round {r + 1}/{rounds}  {name:<16} {common.fmt(row['rps'], '10.0f')} req/s"
                  f"  {common.fmt(row['cpu'], '6.2f')} CPU-s"
                  f"  {common.fmt(row['cpu100k'], '5.2f')} CPU-s/100k"
                  f"  {common.fmt(row['rss_mb'], '6.1f')} MB"
                  f"  nginx {row['server'] * 100:4.0f}% of a core"
                  + (f"  (exit {rc})" if rc != 0 else ""), flush=True)
            if not nginx.alive():
                common.die("nginx died during the run")
            time.sleep(pause)
    return runs


def ratio(a, b):
    return a / b if b else float("nan")


def summarize(runs, rounds):
    """Medians per tool, and the median over rounds of each round's ratio against wrk."""
    wrk = {row["round"]: row for row in runs["wrk"]}
    summary = {}
    for name, rows in runs.items():
        rps = [row["rps"] for row in rows]
        med = common.median(rps)
        finite = [v for v in rps if v == v]
        spread = (max(finite) - min(finite)) / med * 100 if finite and med else float("nan")
        rps_ratio = [ratio(row["rps"], wrk[row["round"]]["rps"]) for row in rows]
        cpu_ratio = [ratio(row["cpu100k"], wrk[row["round"]]["cpu100k"]) for row in rows]
        summary[name] = dict(
            rps=med, spread=spread,
            cpu100k=common.median([row["cpu100k"] for row in rows]),
            cpu_spread=[min(r["cpu100k"] for r in rows), max(r["cpu100k"] for r in rows)],
            rss=max(row["rss_mb"] for row in rows),
            errors=common.median([row["errors"] for row in rows]),
            server=common.median([row["server"] for row in rows]),
            rps_ratio=common.median(rps_ratio), cpu_ratio=common.median(cpu_ratio),
            rps_ratios=rps_ratio, cpu_ratios=cpu_ratio,
        )
    return summary


def print_table(summary, rounds):
    print(f"\nMedians over {rounds} rounds (ratios: per round against wrk in the same round, "
          "then the median; spread: (max-min)/median of req/s):\n")
    head = ("| tool | req/s | spread | CPU-s per 100k req | max RSS MB | errors "
            "| req/s ÷ wrk | CPU/req ÷ wrk | nginx CPU (1 core) |")
    print(head)
    print("|---|--:|--:|--:|--:|--:|--:|--:|--:|")
    for name, s in summary.items():
        print(f"| {name} | {common.fmt(s['rps'], '.0f')} | {common.fmt(s['spread'], '.0f')}% "
              f"| {common.fmt(s['cpu100k'], '.2f')} | {common.fmt(s['rss'], '.1f')} "
              f"| {common.fmt(s['errors'], '.0f')} | {common.fmt(s['rps_ratio'], '.2f')} "
              f"| {common.fmt(s['cpu_ratio'], '.2f')} | {s['server'] * 100:.0f}% |")


def print_targets(summary):
    for name, s in summary.items():
        if not name.startswith("hakaru"):
            continue
        cpu_ok = s["cpu_ratio"] <= 1.0
        rps_ok = s["rps_ratio"] >= 0.95
        rounds_cpu = ", ".join(common.fmt(v, ".2f") for v in s["cpu_ratios"])
        rounds_rps = ", ".join(common.fmt(v, ".2f") for v in s["rps_ratios"])
        print(f"target: {name} CPU per request <= wrk's: {s['cpu_ratio']:.2f}x "
              f"(rounds: {rounds_cpu}) -> {'PASS' if cpu_ok else 'FAIL'}")
        print(f"target: {name} req/s >= 0.95x wrk's: {s['rps_ratio']:.2f}x "
              f"(rounds: {rounds_rps}) -> {'PASS' if rps_ok else 'FAIL'}")


def print_before_after(runs):
    """The current build against the older one, per round and then the median."""
    lines = []
    for new, old in (("hakaru", "hakaru-before"), ("hakaru-t1", "hakaru-before-t1")):
        if new not in runs or old not in runs:
            continue
        prev = {row["round"]: row for row in runs[old]}
        for key, what in (("cpu100k", "CPU per request"), ("rps", "req/s")):
            per_round = [ratio(row[key], prev[row["round"]][key]) for row in runs[new]]
            rounds = ", ".join(common.fmt(v, ".2f") for v in per_round)
            lines.append(f"{new} ÷ {old}, {what}: "
                         f"{common.fmt(common.median(per_round), '.2f')}x (rounds: {rounds})")
    if lines:
        print("\n" + "\n".join(lines))


def main():
    args = sys.argv[1:]
    if "-h" in args or "--help" in args:
        print(__doc__.strip())
        return 0
    unknown = [a for a in args if a != "--no-keep-alive"]
    if unknown:
        common.die(f"unknown argument {unknown[0]!r} (see --help)")
    dur = common.env_number("DURATION", 10, int)
    rounds = common.env_number("ROUNDS", 3, int)
    conns = common.env_number("CONNECTIONS", 50, int)
    pause = common.env_number("PAUSE", 1.0)
    common.gnu_time()
    tools = build_tools()
    work = common.Workdir("hakaru-peers-").path
    nginx = common.Nginx(work)

    print("# hakaru and its peers against nginx (static file, loopback)\n")
    print(f"machine: {common.machine_line()}")
    print(f"server: {nginx.version}, one process (master_process off), {nginx.url}")
    for line in tool_versions(tools):
        print(line)

    sections = [("keep-alive", True)]
    if "--no-keep-alive" in args:
        sections.append(("no keep-alive", False))
    for title, keep_alive in sections:
        runs = run_section(title, tools, nginx, work, keep_alive, dur, rounds, conns, pause)
        summary = summarize(runs, rounds)
        print_table(summary, rounds)
        if keep_alive:
            print()
            print_targets(summary)
        print_before_after(runs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
