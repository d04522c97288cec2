#!/usr/bin/env python3
"""Does io_uring beat epoll for an HTTP/1.1 keep-alive load client here? (issue 22 item 4)

Runs wrk (-t1), hakaru (--threads 1, as peers.py's hakaru-t1) and bench/uring-probe in
its epoll and io_uring modes against one private nginx (bench/common.py), one thread
each, keep-alive, CONNECTIONS connections, DURATION s a run, ROUNDS rounds with the
order rotated each round. Per run: requests from each tool's own output, user and
system CPU and context switches from GNU time (wait4 sums every thread of the process,
so io_uring's SQPOLL and io-wq threads count), nginx's CPU from /proc, and the CPU the
rest of the machine spent meanwhile ("others": /proc/stat's busy time less the client's
and nginx's; near 0 when the run had the machine to itself, so a run disturbed by other
jobs shows). Prints medians and per-round
ratios against wrk in the same round (and the probe's own latency percentiles, send to
response seen, what batching wake-ups costs); then, unless SYSCALLS=0, one `perf stat` run of
each tool for syscalls and context switches per request (tracepoints add overhead, so
those runs are kept out of the CPU figures).

Tools (TOOLS, comma list; default wrk,hakaru-t1,epoll,uring,uring-multi,uring-w16,
epoll-w16-p200): `wrk`, `hakaru-t1`, and probe modes named `epoll[-wK-pUS]` or
`uring[-multi][-defer|-coop|-none|-sqpoll][-fixed][-wK][-mUS]` (uring: a send linked to
a recv per request; -multi: a multishot recv on a provided-buffer ring and a send per
request; setup flags default defer = SINGLE_ISSUER + DEFER_TASKRUN; -fixed: registered
files; -wK: each io_uring_enter waits for K completions; -mUS: for at most US µs
(min_wait); epoll's -pUS: sleep US µs after a turn that found fewer than K ready).
Environment: DURATION (5), ROUNDS (3), CONNECTIONS (50), PAUSE (1), HAKARU, PROBE (the
probe binary; built with cargo in bench/uring-probe if unset), SYSCALLS (1), KEEP=1.
Needs: apt-get install nginx wrk time linux-perf; a Rust toolchain for the probe.
"""

import os
import re
import shutil
import subprocess
import sys
import time

sys.dont_write_bytecode = True  # keep bench/ free of __pycache__
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402
import peers  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
SETUPS = ("defer", "coop", "none", "sqpoll")


def probe_binary():
    path = os.environ.get("PROBE")
    if path:
        if not os.access(path, os.X_OK):
            common.die(f"PROBE={path} is not an executable")
        return path
    crate = os.path.join(HERE, "uring-probe")
    print("building bench/uring-probe (cargo build --release) ...", file=sys.stderr)
    if subprocess.call(["cargo", "build", "--release", "-q"], cwd=crate) != 0:
        common.die("cargo build --release in bench/uring-probe failed")
    return os.path.join(crate, "target", "release", "uring-probe")


def probe_args(name):
    """`uring-multi-coop-fixed-w16` -> ["uring-multi", "--setup", "coop", "--fixed",
    "--wait", "16"]; `epoll-w16-p200` -> ["epoll", "--wait", "16", "--pace", "200"]."""
    parts = name.split("-")
    if parts[0] not in ("epoll", "uring"):
        return None
    uring = parts[0] == "uring"
    mode, extra = parts[0], []
    for p in parts[1:]:
        knob = re.fullmatch(r"([wmp])(\d+)", p)
        if p == "multi" and mode == "uring":
            mode = "uring-multi"
        elif p in SETUPS and uring:
            extra += ["--setup", p]
        elif p == "fixed" and uring:
            extra.append("--fixed")
        elif knob and (knob[1] == "w" or (knob[1] == "m") == uring):
            flag = {"w": "--wait", "m": "--min-wait", "p": "--pace"}[knob[1]]
            extra += [flag, knob[2]]
        else:
            return None
    return [mode] + extra


def tools(names, conns, dur):
    """name -> (argv maker(url, base), request count parser(text, base))."""
    out = {}
    probe = None
    for name in names:
        if name == "wrk":
            wrk = shutil.which("wrk") or common.die("wrk not found: apt-get install wrk")
            out[name] = (lambda url, base, w=wrk: [w, "-t1", f"-c{conns}", f"-d{dur}s", url],
                         lambda text, base: peers.parse_wrk(text, base)[0])
        elif name == "hakaru-t1":
            make = peers.hakaru_argv(common.hakaru_binary(), 1)
            out[name] = (lambda url, base, m=make: m(url, dur, conns, True, base),
                         lambda text, base: peers.parse_hakaru(text, base)[0])
        elif probe_args(name) is not None:
            probe = probe or probe_binary()
            args = probe_args(name)

            def argv(url, base, a=args, p=probe):
                hostport = url.split("//", 1)[1].rstrip("/")
                return [p, a[0], hostport, str(conns), str(dur)] + a[1:]
            out[name] = (argv, lambda text, base: int(re.search(r"requests (\d+)", text).group(1)))
        else:
            common.die(f"TOOLS: unknown tool {name!r} (wrk, hakaru-t1, epoll[-wK-pUS], uring[-multi]"
                       "[-defer|-coop|-none|-sqpoll][-fixed][-wK][-mUS])")
    if "wrk" not in out:
        common.die("TOOLS must include wrk: every ratio is against wrk")
    return out


def machine_busy():
    """Busy CPU seconds of the whole machine so far (all cores; idle and iowait left out)."""
    with open("/proc/stat") as f:
        fields = [int(x) for x in f.readline().split()[1:]]
    return (sum(fields) - fields[3] - fields[4]) / os.sysconf("SC_CLK_TCK")


def run_rounds(table, nginx, work, rounds, dur, pause):
    names = list(table)
    rows = {n: [] for n in names}
    for r in range(rounds):
        for name in names[r % len(names):] + names[:r % len(names)]:
            argv, count = table[name]
            base = os.path.join(work, f"{name}-r{r + 1}")
            ng0, m0 = nginx.cpu_seconds(), machine_busy()
            text, user, system, switches = common.timed_split(argv(nginx.url, base), base, dur + 60)
            ng, machine = nginx.cpu_seconds() - ng0, machine_busy() - m0
            try:
                n = count(text, base)
            except (AttributeError, OSError, ValueError, KeyError, IndexError) as e:
                common.die(f"could not read {name}'s output ({e}): {text[-500:]!r}")
            us = 1e6 / max(n, 1)
            lat = re.search(r"p50 (\d+) us p99 (\d+) us", text)
            row = dict(rps=n / dur, user=user * us, sys=system * us, total=(user + system) * us,
                       switches=switches / max(n, 1), nginx=ng * us, machine=machine * us,
                       # The machine's CPU neither this client nor nginx spent: other jobs
                       # on a shared machine; near 0 when the run had the machine alone.
                       others=(machine - user - system - ng) * us,
                       p50=float(lat[1]) if lat else float("nan"),
                       p99=float(lat[2]) if lat else float("nan"))
            rows[name].append(row)
            print(f"  round {r + 1}/{rounds}  {name:<18} {row['rps']:8.0f} req/s  user "
                  f"{row['user']:5.2f}  sys {row['sys']:5.2f}  total {row['total']:5.2f} µs/req"
                  f"  nginx {row['nginx']:5.2f}  others {row['others']:6.2f} µs/req",
                  flush=True)
            if not nginx.alive():
                common.die("nginx died during the run")
            time.sleep(pause)
    return rows


def print_summary(rows, rounds):
    wrk = rows["wrk"]
    print(f"\nMedians over {rounds} rounds; ÷ wrk: each round's ratio against wrk in the same "
          "round, then the median (per-round total ratios in brackets):\n")
    print("| tool | req/s | user µs/req | sys µs/req | total µs/req | user ÷ wrk | sys ÷ wrk "
          "| total ÷ wrk (rounds) | req/s ÷ wrk | ctx sw/req | nginx µs/req "
          "| others µs/req | probe latency p50 / p99 µs |")
    print("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|")
    for name, runs in rows.items():
        med = {k: common.median([x[k] for x in runs]) for k in runs[0]}
        ratio = {k: [a[k] / b[k] for a, b in zip(runs, wrk)] for k in
                 ("user", "sys", "total", "rps")}
        each = ", ".join(f"{v:.2f}" for v in ratio["total"])
        print(f"| {name} | {med['rps']:.0f} | {med['user']:.2f} | {med['sys']:.2f} "
              f"| {med['total']:.2f} | {common.median(ratio['user']):.2f} "
              f"| {common.median(ratio['sys']):.2f} | {common.median(ratio['total']):.2f} "
              f"({each}) | {common.median(ratio['rps']):.2f} | {med['switches']:.3f} "
              f"| {med['nginx']:.2f} | {med['others']:.2f} "
              f"| {common.fmt(med['p50'], '.0f')} / {common.fmt(med['p99'], '.0f')} |")


def print_syscalls(table, nginx, work, dur):
    perf = shutil.which("perf")
    if perf is None:
        print("\n(perf not found: no syscall counts; apt-get install linux-perf)")
        return
    print(f"\nSyscalls per request (one `perf stat -e raw_syscalls:sys_enter` run of {dur} s "
          "each, not timed):\n")
    print("| tool | syscalls/req | context switches/req |")
    print("|---|--:|--:|")
    for name, (argv, count) in table.items():
        base = os.path.join(work, f"{name}-perf")
        cmd = [perf, "stat", "-x,", "-o", base + ".perf", "-e",
               "raw_syscalls:sys_enter,context-switches", "--"] + argv(nginx.url, base)
        with open(base + ".out", "wb") as out:
            subprocess.run(cmd, stdout=out, stderr=subprocess.STDOUT, timeout=dur + 60)
        with open(base + ".out", "rb") as f:
            n = max(count(f.read().decode(errors="replace"), base), 1)
        counts = {}
        with open(base + ".perf") as f:
            for line in f:
                parts = line.strip().split(",")
                if len(parts) >= 3 and not line.startswith("#"):
                    try:
                        counts[parts[2]] = float(parts[0])
                    except ValueError:
                        pass
        sc = counts.get("raw_syscalls:sys_enter", float("nan")) / n
        cs = counts.get("context-switches", float("nan")) / n
        print(f"| {name} | {sc:.2f} | {cs:.3f} |", flush=True)
        time.sleep(1)


def main():
    if "-h" in sys.argv[1:] or "--help" in sys.argv[1:]:
        print(__doc__.strip())
        return 0
    dur = common.env_number("DURATION", 5, int)
    rounds = common.env_number("ROUNDS", 3, int)
    conns = common.env_number("CONNECTIONS", 50, int)
    pause = common.env_number("PAUSE", 1, float)
    names = [n.strip() for n in os.environ.get(
        "TOOLS", "wrk,hakaru-t1,epoll,uring,uring-multi,uring-w16,epoll-w16-p200").split(",") if n.strip()]
    table = tools(names, conns, dur)
    work = common.Workdir("hakaru-uring-").path
    nginx = common.Nginx(work)
    with open("/proc/loadavg") as f:
        load = " ".join(f.read().split()[:3])
    print(f"# HTTP/1.1 keep-alive, one client thread, {conns} connections, {rounds} x {dur} s\n\n"
          f"machine: {common.machine_line()}, kernel {os.uname().release}, load average "
          f"{load} at start\nserver: {nginx.version}, one worker\n")
    rows = run_rounds(table, nginx, work, rounds, dur, pause)
    print_summary(rows, rounds)
    if os.environ.get("SYSCALLS", "1") != "0":
        print_syscalls(table, nginx, work, dur)
    with open("/proc/loadavg") as f:
        print(f"\nload average at the end: {' '.join(f.read().split()[:3])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
