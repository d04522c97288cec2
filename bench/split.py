#!/usr/bin/env python3
"""Where an HTTP/1.1 client's CPU per request goes on loopback: user space against the
kernel, beside wrk at equal threads.

Issue 22 asks for hakaru's CPU per request at most 0.8x wrk's. This script shows how
much of either client's CPU is its own code (user time) and how much is the kernel's
(system time: loopback TCP, both ends' packet work, epoll and context switches), with
the TCP segments and context switches each request costs, so a target can be set on
the part a client controls. One private nginx (bench/common.py), keep-alive, each tool
in turn, ROUNDS rounds; medians of per-round figures, ratios against wrk in the same
round.

Environment: DURATION (s, default 5), ROUNDS (3), CONNECTIONS (50), HAKARU (binary).
Needs: apt-get install nginx wrk time iproute2 (nstat).
"""

import json
import os
import re
import shutil
import subprocess
import sys
import time

sys.dont_write_bytecode = True  # keep bench/ free of __pycache__
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402

SEGMENTS = "TcpOutSegs"


def nstat_segments():
    """The machine's TCP segments sent so far (loopback: both ends, client and server)."""
    out = subprocess.run(["nstat", "-az", SEGMENTS], capture_output=True, text=True).stdout
    for line in out.splitlines():
        parts = line.split()
        if parts and parts[0] == SEGMENTS:
            return int(parts[1])
    common.die("nstat printed no TcpOutSegs")


def tools(hakaru, dur, conns):
    """(name, argv maker, request count parser) at equal threads: 2 and 1."""
    def hakaru_run(threads):
        def argv(url, base):
            return [hakaru, "run", "-c", str(conns), "-d", f"{dur}s", "-k",
                    "--threads", str(threads), "-o", base + ".csv", url]

        def count(text, base):
            with open(base + ".json") as f:
                return json.load(f)["steps"][0]["responses"]
        return argv, count

    def wrk_run(threads):
        def argv(url, base):
            return ["wrk", f"-t{threads}", f"-c{conns}", f"-d{dur}s", url]

        def count(text, base):
            return int(re.search(r"(\d+) requests in", text).group(1))
        return argv, count

    return [("hakaru-t2", *hakaru_run(2)), ("wrk-t2", *wrk_run(2)),
            ("hakaru-t1", *hakaru_run(1)), ("wrk-t1", *wrk_run(1))]


def main():
    dur = common.env_number("DURATION", 5, int)
    rounds = common.env_number("ROUNDS", 3, int)
    conns = common.env_number("CONNECTIONS", 50, int)
    for need in ("wrk", "nstat"):
        if shutil.which(need) is None:
            common.die(f"{need} not found: apt-get install nginx wrk time iproute2")
    work = common.Workdir("hakaru-split-").path
    nginx = common.Nginx(work)
    rows = {}
    for r in range(rounds):
        for name, argv, count in tools(common.hakaru_binary(), dur, conns):
            base = os.path.join(work, f"{name}-{r}")
            before = nstat_segments()
            text, user, system, switches = common.timed_split(argv(nginx.url, base), base, dur + 60)
            segments = nstat_segments() - before
            n = count(text, base)
            rows.setdefault(name, []).append(dict(
                user=user / n * 1e6, sys=system / n * 1e6, segs=segments / n,
                switches=switches / n))
            time.sleep(1)
    print(f"# user space and kernel per request, keep-alive, {conns} connections, "
          f"{rounds} x {dur} s\n\nmachine: {common.machine_line()}\nserver: {nginx.version}\n")
    print("| tool | user µs/req | system µs/req | user share | TCP segments/req "
          "| context switches/req | user ÷ wrk | system ÷ wrk | total ÷ wrk |")
    print("|---|--:|--:|--:|--:|--:|--:|--:|--:|")
    notes = []
    for name, runs in rows.items():
        threads = name.split("-")[1]
        peer = rows["wrk-" + threads]
        med = {k: common.median([x[k] for x in runs]) for k in runs[0]}
        ratio = {k: common.median([a[k] / b[k] for a, b in zip(runs, peer)])
                 for k in ("user", "sys")}
        total = common.median([(a["user"] + a["sys"]) / (b["user"] + b["sys"])
                               for a, b in zip(runs, peer)])
        share = med["user"] / (med["user"] + med["sys"])
        print(f"| {name} | {med['user']:.2f} | {med['sys']:.2f} | {share * 100:.0f}% "
              f"| {med['segs']:.3f} | {med['switches']:.3f} | {ratio['user']:.2f} "
              f"| {ratio['sys']:.2f} | {total:.2f} |")
        if name.startswith("hakaru"):
            wrk_total = common.median([b["user"] + b["sys"] for b in peer])
            need = 0.8 * wrk_total - med["sys"]
            notes.append(f"{name}: 0.8x wrk-{threads}'s total CPU per request "
                         f"({0.8 * wrk_total:.2f} µs) at this system time leaves "
                         f"{need:.2f} µs of user time per request (now {med['user']:.2f})")
    print()
    for line in notes:
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
