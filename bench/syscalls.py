#!/usr/bin/env python3
"""Where each client's CPU goes: syscalls and context switches per request, via perf stat.

A diagnostic beside peers.py, not a scoreboard: tracepoints add overhead, so take the
counts per request, not the CPU times. Each tool runs once (keep-alive, then with
--no-keep-alive also without) against the same private nginx; the table shows the
syscalls each tool makes per request, the busiest ones by name, and context switches.

Needs `perf` (linux-perf) with syscall tracepoints (root, or kernel.perf_event_paranoid
low enough). Environment: DURATION (default 10), CONNECTIONS (50), TOOLS (as peers.py,
default hakaru,hakaru-t1,wrk,ab,oha), HAKARU, KEEP=1.
"""

import os
import shutil
import subprocess
import sys
import time

sys.dont_write_bytecode = True  # keep bench/ free of __pycache__
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402
import peers  # noqa: E402

NAMED = ("read", "write", "recvfrom", "sendto", "readv", "writev", "epoll_wait", "epoll_pwait",
         "epoll_ctl", "futex", "sched_yield", "socket", "connect", "close", "setsockopt",
         "getsockopt", "poll")
EVENTS = ["task-clock", "context-switches", "cpu-migrations", "raw_syscalls:sys_enter"] + [
    f"syscalls:sys_enter_{n}" for n in NAMED]


def perf_run(perf, argv, base, timeout):
    cmd = [perf, "stat", "-x,", "-o", base + ".perf", "-e", ",".join(EVENTS), "--"] + argv
    with open(base + ".out", "wb") as out:
        subprocess.run(cmd, stdout=out, stderr=subprocess.STDOUT, timeout=timeout)
    with open(base + ".out", "rb") as f:
        text = f.read().decode(errors="replace")
    counts = {}
    with open(base + ".perf") as f:
        for line in f:
            parts = line.strip().split(",")
            if len(parts) < 3 or line.startswith("#"):
                continue
            try:
                counts[parts[2]] = float(parts[0])
            except ValueError:
                pass  # "<not counted>" / "<not supported>"
    return text, counts


def main():
    args = sys.argv[1:]
    if "-h" in args or "--help" in args:
        print(__doc__.strip())
        return 0
    perf = shutil.which("perf")
    if perf is None:
        common.die("perf not found: apt-get install linux-perf")
    dur = common.env_number("DURATION", 10, int)
    conns = common.env_number("CONNECTIONS", 50, int)
    os.environ.setdefault("TOOLS", "hakaru,hakaru-t1,wrk,ab,oha")
    tools = peers.build_tools()
    work = common.Workdir("hakaru-syscalls-").path
    nginx = common.Nginx(work)
    print(f"# syscalls and context switches per request ({conns} connections, {dur} s, "
          f"perf stat)\n\nmachine: {common.machine_line()}")
    modes = [("keep-alive", True)] + ([("no keep-alive", False)]
                                      if "--no-keep-alive" in args else [])
    for title, keep_alive in modes:
        rows = []
        for name, t in tools.items():
            base = os.path.join(work, f"{'ka' if keep_alive else 'close'}-{name}")
            argv = t["argv"](nginx.url, dur, conns, keep_alive, base)
            text, counts = perf_run(perf, argv, base, dur + 60)
            try:
                n, rps, _ = t["parse"](text, base)
            except (AttributeError, OSError, ValueError, KeyError, IndexError):
                print(f"  could not read {name}'s output; see {base}.out (KEEP=1)")
                continue
            per = {k: v / n for k, v in counts.items()} if n else {}
            rows.append((name, rps, per))
            time.sleep(1)
        print(f"\n## {title}\n")
        print("| tool | req/s (under perf) | CPU ms per 1k req | syscalls/req | ctx switches/req "
              "| busiest syscalls per request |")
        print("|---|--:|--:|--:|--:|---|")
        for name, rps, per in rows:
            named = sorted(((per.get(f"syscalls:sys_enter_{s}", 0), s) for s in NAMED),
                           reverse=True)
            busiest = ", ".join(f"{s} {v:.2f}" for v, s in named if v >= 0.01)
            print(f"| {name} | {rps:.0f} | {per.get('task-clock', float('nan')) * 1000:.1f} "
                  f"| {per.get('raw_syscalls:sys_enter', float('nan')):.2f} "
                  f"| {per.get('context-switches', float('nan')):.3f} | {busiest} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
