#!/usr/bin/env python3
"""hakaru's resident memory: a short run against a long one at 100 clients, and a
patterns file of a million lines.

Runs `hakaru run -c CONNECTIONS -n SMALL_N` and then `-n BIG_N` against a private
nginx (TARGET=nginx, default) or hakaru's embedded target (TARGET=serve), takes each
run's peak RSS from /usr/bin/time (%M), samples the long run's RSS from /proc as it
goes, and checks the targets: peak RSS under 30 MB, and the long run within 10% of
the short one (memory must not grow with the number of requests).

Then writes a patterns file of PATTERNS lines (`hakaru patterns`'s search template,
`...&query=termN`, about 108 bytes a line), runs `hakaru run -d 2 -c 10` on it and
checks its peak RSS against 150 MB (memory must not grow with the patterns file);
the result file's size is printed beside it.

With LONG_S set, runs only a long open-model run instead: `hakaru run -c CONNECTIONS
--rate LONG_RATE -d LONG_S` (every step keeps a per-second timeline and, for a patterns
file of several groups, per-label counts), RSS sampled every 5 s, and checks that the
last sample is within 10% of the one at 30 s (memory must not grow with the seconds).
LONG_PATTERNS=FILE runs it on a patterns file (its hosts: the target's).

With PER_CONNECTION=50,1000,4000 set, runs only the memory per connection: hakaru
(`run -c N -d PER_CONNECTION_S --threads 1`) and wrk (`-t1 -cN`) at each N, keep-alive,
against the private nginx; prints each tool's peak RSS and its growth per connection
from the smallest N ((RSS(N) - RSS(N0)) / (N - N0), KB). Needs wrk; raises the
open-file limit for the children only.

Environment: SMALL_N (default 100000), BIG_N (10000000; a few minutes here),
CONNECTIONS (100), PATTERNS (1000000; SKIP_N=1 runs only the patterns case),
LONG_S, LONG_RATE (5000), LONG_PATTERNS, TARGET (nginx or serve), HAKARU (binary
path), KEEP=1.
"""

import json
import os
import subprocess
import sys
import time

sys.dont_write_bytecode = True  # keep bench/ free of __pycache__
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402

RSS_LIMIT_MB = 30.0
GROWTH_LIMIT = 0.10
PATTERNS_RSS_LIMIT_MB = 150.0
# `hakaru patterns --template`'s example: the shared start of every line, then a term.
PATTERN_LINE = ("/d/select?command_version=2&table=Pages&limit=10&match_columns=title,text"
                "&query_flags=NONE&query=term{}\n")


def child_pid(pid):
    """The command GNU time runs is its only child."""
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            kids = f.read().split()
        return int(kids[0]) if kids else None
    except (OSError, ValueError):
        return None


def rss_mb(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def measure(binary, url, n, conns, base, sample_every):
    """One run; returns (peak RSS MB, responses, qps, elapsed s, [(t, RSS MB)])."""
    argv = [common.gnu_time(), "-f", "%U %S %M", "-o", base + ".time",
            binary, "run", "-c", str(conns), "-n", str(n), "-k", "-o", base + ".csv", url]
    samples = []
    start = time.monotonic()
    with open(base + ".out", "wb") as out:
        proc = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT)
        pid = None
        while proc.poll() is None:
            time.sleep(sample_every)
            pid = pid or child_pid(proc.pid)
            value = rss_mb(pid) if pid else None
            if value is not None:
                samples.append((time.monotonic() - start, value))
    if proc.returncode != 0:
        common.die(f"hakaru run -n {n} exited {proc.returncode}; see {base}.out (KEEP=1)")
    with open(base + ".time") as f:
        peak_kb = float(f.read().split()[2])
    with open(base + ".json") as f:
        step = json.load(f)["steps"][0]
    return peak_kb / 1024, step["responses"], step["qps"], step["elapsed_s"], samples


def measure_patterns(binary, url, n, work):
    """A 2-second run on a patterns file of n lines; returns (peak RSS MB, wall s,
    result JSON bytes, file bytes)."""
    path = os.path.join(work, f"patterns-{n}.txt")
    with open(path, "w") as f:
        for i in range(n):
            f.write(PATTERN_LINE.format(i))
    host, port = url.split("//", 1)[1].rstrip("/").rsplit(":", 1)
    base = os.path.join(work, f"patterns-{n}")
    argv = [common.gnu_time(), "-f", "%e %M", "-o", base + ".time",
            binary, "run", "-d", "2", "-c", "10", "--request-patterns-file", path,
            "--default-hosts", host, "--default-port", port, "-o", base + ".csv"]
    with open(base + ".out", "wb") as out:
        rc = subprocess.call(argv, stdout=out, stderr=subprocess.STDOUT)
    if rc != 0:
        common.die(f"hakaru run on {n} patterns exited {rc}; see {base}.out (KEEP=1)")
    with open(base + ".time") as f:
        wall, peak_kb = f.read().split()[-2:]
    return (float(peak_kb) / 1024, float(wall), os.path.getsize(base + ".json"),
            os.path.getsize(path))


def measure_long(binary, url, seconds, rate, conns, work):
    """A long open-model run; returns ([(t, RSS MB)], result JSON bytes, timeline entries,
    labels, responses)."""
    base = os.path.join(work, "long")
    argv = [binary, "run", "-c", str(conns), "--rate", str(rate), "-d", f"{seconds}s", "-k",
            "-o", base + ".csv"]
    patterns = os.environ.get("LONG_PATTERNS")
    if patterns:
        host, port = url.split("//", 1)[1].rstrip("/").rsplit(":", 1)
        argv += ["--request-patterns-file", patterns, "--default-hosts", host,
                 "--default-port", port]
    else:
        argv.append(url)
    samples = []
    start = time.monotonic()
    with open(base + ".out", "wb") as out:
        proc = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT)
        while proc.poll() is None:
            time.sleep(5)
            value = rss_mb(proc.pid)
            if value is not None:
                samples.append((time.monotonic() - start, value))
    if proc.returncode != 0:
        common.die(f"hakaru run --rate {rate} exited {proc.returncode}; see {base}.out (KEEP=1)")
    with open(base + ".json") as f:
        step = json.load(f)["steps"][0]
    return (samples, os.path.getsize(base + ".json"), len(step.get("timeline") or []),
            len(step.get("labels") or []), step["responses"])


def long_run(binary, url, what, conns, work):
    seconds = common.env_number("LONG_S", 600, int)
    rate = common.env_number("LONG_RATE", 5000, int)
    print("# hakaru's resident memory over a long open-model run\n")
    print(f"machine: {common.machine_line()}")
    print(f"target: {what} at {url}; {conns} clients, --rate {rate}, {seconds} s\n", flush=True)
    samples, json_bytes, entries, labels, responses = measure_long(
        binary, url, seconds, rate, conns, work)
    picks = [samples[round(i * (len(samples) - 1) / 9)] for i in range(10)] if samples else []
    print("RSS (s:MB): " + "  ".join(f"{t:.0f}s:{mb:.1f}" for t, mb in picks))
    print(f"{responses} responses; result JSON {json_bytes / 1e6:.1f} MB, "
          f"{entries} timeline entries, {labels} labels")
    early = next((mb for t, mb in samples if t >= 30), None)
    last = samples[-1][1] if samples else None
    if early and last:
        growth = last / early - 1
        print(f"target: RSS at the end within {GROWTH_LIMIT:.0%} of RSS at 30 s: {last:.1f} MB vs "
              f"{early:.1f} MB = {growth:+.1%} -> "
              f"{'PASS' if abs(growth) <= GROWTH_LIMIT else 'FAIL'}")
    return 0


def per_connection(binary, url, what, counts, work):
    """Peak RSS of hakaru and wrk at each connection count, and the growth per connection."""
    import resource
    wrk = common.find_tool("wrk")
    if not wrk:
        common.die("wrk not found: apt-get install wrk")
    secs = common.env_number("PER_CONNECTION_S", 5, int)
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = min(hard, max(counts) * 2 + 1024)
    if soft < want:
        resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
    print("# memory per connection: hakaru beside wrk, keep-alive, one client thread\n")
    print(f"machine: {common.machine_line()}")
    print(f"target: {what} at {url}; {secs} s per run\n")
    tools = {
        "hakaru": lambda n: [binary, "run", "-c", str(n), "-d", f"{secs}s", "--threads", "1",
                             "-q", url],
        "wrk": lambda n: [wrk, "-t1", f"-c{n}", f"-d{secs}s", url],
    }
    rss = {name: {} for name in tools}
    for n in counts:
        for name, argv in tools.items():
            base = os.path.join(work, f"{name}-{n}")
            rc, _text, _cpu, rss_kb, _wall = common.timed_run(
                argv(n), base + ".out", base + ".time", timeout=secs * 3 + 60)
            rss[name][n] = rss_kb
            print(f"  {name:<7} -c {n:>6}: peak RSS {rss_kb / 1024:7.1f} MB (rc {rc})", flush=True)
    first = counts[0]
    print("\n| connections | " + " | ".join(f"{t} RSS MB | {t} KB/conn" for t in tools) + " |")
    print("|--:|" + "--:|--:|" * len(tools))
    for n in counts:
        cells = []
        for name in tools:
            r = rss[name][n]
            per = (r - rss[name][first]) / (n - first) if n != first else float("nan")
            cells.append(f"{r / 1024:.1f} | {common.fmt(per, '.1f')}")
        print(f"| {n} | " + " | ".join(cells) + " |")
    return 0


def main():
    if "-h" in sys.argv[1:] or "--help" in sys.argv[1:]:
        print(__doc__.strip())
        return 0
    small = common.env_number("SMALL_N", 100000, int)
    big = common.env_number("BIG_N", 10000000, int)
    conns = common.env_number("CONNECTIONS", 100, int)
    target = os.environ.get("TARGET", "nginx")
    if target not in ("nginx", "serve"):
        common.die(f"TARGET={target!r}: use nginx or serve")
    binary = common.hakaru_binary()
    work = common.Workdir("hakaru-memory-").path
    if target == "nginx":
        server = common.Nginx(work)
        url, what = server.url, server.version
    else:
        server = common.Serve(binary, work)
        url = server.url
        what = "hakaru serve (embedded target)"

    if os.environ.get("LONG_S"):
        return long_run(binary, url, what, conns, work)
    if os.environ.get("PER_CONNECTION"):
        try:
            counts = sorted({int(c) for c in os.environ["PER_CONNECTION"].split(",")})
        except ValueError:
            common.die("PER_CONNECTION: a comma list of connection counts (50,1000,4000)")
        if len(counts) < 2 or counts[0] <= 0:
            common.die("PER_CONNECTION: at least two positive connection counts")
        return per_connection(binary, url, what, counts, work)
    patterns = common.env_number("PATTERNS", 1000000, int)
    print("# hakaru's resident memory: short run against long run, and a big patterns file\n")
    print(f"machine: {common.machine_line()}")
    print(f"target: {what} at {url}; {conns} clients, keep-alive\n")
    peak, wall, json_bytes, file_bytes = measure_patterns(binary, url, patterns, work)
    print(f"{patterns} patterns ({file_bytes / 1e6:.0f} MB file), -d 2 -c 10: peak RSS "
          f"{peak:.1f} MB, {wall:.1f} s wall (so {wall - 2:.1f} s to read and plan), "
          f"result JSON {json_bytes / 1e3:.0f} kB")
    print(f"target: peak RSS < {PATTERNS_RSS_LIMIT_MB:.0f} MB with {patterns} patterns: "
          f"{'PASS' if peak < PATTERNS_RSS_LIMIT_MB else 'FAIL'}\n", flush=True)
    if os.environ.get("SKIP_N"):
        return 0
    results = {}
    for n in (small, big):
        peak, responses, qps, elapsed, samples = measure(
            binary, url, n, conns, os.path.join(work, f"n{n}"), 0.5)
        results[n] = peak
        print(f"-n {n:>10}: peak RSS {peak:6.1f} MB  ({responses} responses in {elapsed:.1f} s, "
              f"{qps:.0f} req/s)", flush=True)
        if n == big and len(samples) >= 2:
            # Ten evenly spaced samples show whether memory creeps up during the long run.
            picks = [samples[round(i * (len(samples) - 1) / 9)] for i in range(10)]
            timeline = "  ".join(f"{t:.0f}s:{mb:.1f}" for t, mb in picks)
            print(f"  RSS over the long run (s:MB): {timeline}")
    growth = results[big] / results[small] - 1
    worst = max(results.values())
    print()
    print(f"target: peak RSS < {RSS_LIMIT_MB:.0f} MB at {conns} clients: {worst:.1f} MB -> "
          f"{'PASS' if worst < RSS_LIMIT_MB else 'FAIL'}")
    print(f"target: -n {big} within {GROWTH_LIMIT:.0%} of -n {small}: {results[big]:.1f} MB vs "
          f"{results[small]:.1f} MB = {growth:+.1%} -> "
          f"{'PASS' if abs(growth) <= GROWTH_LIMIT else 'FAIL'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
