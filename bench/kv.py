#!/usr/bin/env python3
"""hakaru beside redis-benchmark against one private redis-server, and beside
memtier_benchmark (when MEMTIER names its binary) against that redis-server and one
private memcached.

Both tools send the same command (GET of one existing key, `-d 3` values as
redis-benchmark's default) on the same number of connections with the same number of
commands in flight per connection, P = 1 and 16: redis-benchmark
`-c C -n N -t get -P P --csv`, hakaru `run -c C×P --pipeline P -n N --commands
get.txt` (`GET key:__rand_int__`, the key redis-benchmark asks for without -r;
hakaru's -c counts clients, P of which share each connection). Per run: operations/s from each tool's own
report, and the client's user+sys CPU from GNU time, as µs per operation (and
split into user and system time, with the user time that 0.8× of redis-benchmark's
CPU would leave hakaru at its own system time). Rounds
alternate the order of the tools; medians and per-round ratios are printed.

memtier_benchmark is not packaged in Debian; it was built outside the repository:
`git clone https://github.com/RedisLabs/memtier_benchmark /tmp/memtier` (commit
2f74d61), `apt-get install -y libevent-dev autoconf automake libpcre3-dev
zlib1g-dev libssl-dev pkg-config`, `autoreconf -ivf && ./configure && make`; then
MEMTIER=/tmp/memtier/memtier_benchmark. It runs one thread with C connections
(`-t 1 -c C --pipeline P --ratio 0:1`), N/C requests each, GETs of the one key
`key:1` (its keys are a prefix and a number), `--protocol memcache_text` for
memcached; operations/s from its JSON (`ALL STATS.Totals`), CPU from GNU time.

Environment: N (requests per run, 200000), CONNECTIONS (50), ROUNDS (3),
PIPELINES (1,16), MEMTIER (memtier_benchmark's binary; its rows are left out
without it), THREADS (hakaru's --threads; unset: its default, one per core;
THREADS=1 gives it one client thread, as redis-benchmark has and as memtier is
run here with -t 1),
HAKARU (binary; target/release/hakaru, built if missing), KEEP=1 keeps raw outputs.
Needs redis-server, redis-tools (redis-benchmark), memcached, GNU time.
"""

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import atexit

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402

KEY = "key:__rand_int__"
# memtier_benchmark's key: its --key-prefix and a number (--key-minimum/maximum 1).
MT_KEY = "key:1"


class Server:
    """A server process on a free loopback port, stopped by its own PID at exit."""

    def __init__(self, argv, port, name):
        self.proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        atexit.register(self.stop)
        for sig in (signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, lambda *_: sys.exit(130))
        if not common.wait_listening(port, self.proc, timeout=20):
            self.stop()
            common.die(f"{name} did not start on 127.0.0.1:{port}")

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def user_sys(time_path, ops):
    """User and system CPU µs per operation from GNU time's "%U %S %M" line."""
    try:
        with open(time_path) as f:
            last = f.read().strip().splitlines()[-1].split()
        return float(last[0]) / ops * 1e6, float(last[1]) / ops * 1e6
    except (OSError, IndexError, ValueError):
        return float("nan"), float("nan")


def send(port, data, end):
    with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
        s.sendall(data)
        got = b""
        while not got.endswith(end):
            chunk = s.recv(4096)
            if not chunk:
                break
            got += chunk
        return got


def hakaru_run(hakaru, url, commands, n, c, p, work, tag):
    out = os.path.join(work, f"{tag}.csv")
    threads = os.environ.get("THREADS")
    rc, text, cpu, _, _ = common.timed_run(
        [hakaru, "run", "-c", str(c * p), "--pipeline", str(p), "-n", str(n),
         "--commands", commands, url, "-o", out, "-q"]
        + (["--threads", threads] if threads else []),
        os.path.join(work, f"{tag}.out"), os.path.join(work, f"{tag}.time"), 600)
    if rc != 0:
        common.die(f"hakaru failed on {url}:\n{text}")
    with open(out[:-4] + ".json") as f:
        step = json.load(f)["steps"][0]
    if step["errors"]:
        common.die(f"hakaru saw errors on {url}: {step['errors']}")
    ops = max(step["responses"], 1)
    return (step["qps"], cpu / ops * 1e6) + user_sys(os.path.join(work, f"{tag}.time"), ops)


def redis_benchmark(port, n, c, p, work, tag):
    tool = shutil.which("redis-benchmark") or common.die("redis-benchmark not found: apt-get install redis-tools")
    rc, text, cpu, _, _ = common.timed_run(
        [tool, "-h", "127.0.0.1", "-p", str(port), "-c", str(c), "-n", str(n), "-t", "get",
         "-P", str(p), "--csv"],
        os.path.join(work, f"{tag}.out"), os.path.join(work, f"{tag}.time"), 600)
    for line in text.splitlines():
        cells = [x.strip('"') for x in line.split(",")]
        if cells and cells[0] == "GET":
            return (float(cells[1]), cpu / n * 1e6) + user_sys(os.path.join(work, f"{tag}.time"), n)
    common.die(f"redis-benchmark printed no GET line (rc {rc}):\n{text}")


def memtier(tool, port, proto, n, c, p, work, tag):
    """memtier_benchmark's GETs of MT_KEY: (ops/s, client CPU µs per op)."""
    js = os.path.join(work, f"{tag}.json")
    per_client = max(n // c, 1)
    rc, text, cpu, _, _ = common.timed_run(
        [tool, "-s", "127.0.0.1", "-p", str(port), "--protocol", proto, "-t", "1",
         "-c", str(c), "-n", str(per_client), "--pipeline", str(p), "--ratio", "0:1",
         "--key-prefix", "key:", "--key-minimum", "1", "--key-maximum", "1",
         "--hide-histogram", "--json-out-file", js],
        os.path.join(work, f"{tag}.out"), os.path.join(work, f"{tag}.time"), 600)
    try:
        with open(js) as f:
            totals = json.load(f)["ALL STATS"]["Totals"]
    except (OSError, KeyError, ValueError):
        common.die(f"memtier_benchmark wrote no totals (rc {rc}):\n{text}")
    if rc != 0 or totals.get("Misses/sec", 0) > 0 or totals.get("Connection Errors", 0):
        common.die(f"memtier_benchmark failed or missed (rc {rc}): {totals}")
    ops = max(totals["Count"], 1)
    return (totals["Ops/sec"], cpu / ops * 1e6) + user_sys(os.path.join(work, f"{tag}.time"), ops)


def main():
    if len(sys.argv) > 1:
        print(__doc__)
        return
    n = int(common.env_number("N", 200000, int))
    c = int(common.env_number("CONNECTIONS", 50, int))
    rounds = int(common.env_number("ROUNDS", 3, int))
    hakaru = common.hakaru_binary()
    work = common.Workdir("hakaru-kv-").path
    for tool in ("redis-server", "memcached"):
        if not shutil.which(tool):
            common.die(f"{tool} not found: apt-get install redis-server redis-tools memcached")
    rport, mport = common.free_port(), common.free_port()
    Server(["redis-server", "--port", str(rport), "--bind", "127.0.0.1", "--save", "",
            "--appendonly", "no", "--dir", work], rport, "redis-server")
    user = ["-u", "root"] if os.geteuid() == 0 else []
    Server(["memcached", "-l", "127.0.0.1", "-p", str(mport), "-U", "0", "-m", "64"] + user,
           mport, "memcached")
    send(rport, f"*3\r\n$3\r\nSET\r\n${len(KEY)}\r\n{KEY}\r\n$3\r\nxxx\r\n".encode(), b"\r\n")
    send(mport, f"set {KEY} 0 0 3\r\nxxx\r\n".encode(), b"\r\n")
    send(rport, f"*3\r\n$3\r\nSET\r\n${len(MT_KEY)}\r\n{MT_KEY}\r\n$3\r\nxxx\r\n".encode(), b"\r\n")
    send(mport, f"set {MT_KEY} 0 0 3\r\nxxx\r\n".encode(), b"\r\n")
    mt = os.environ.get("MEMTIER")
    if mt and not os.access(mt, os.X_OK):
        common.die(f"MEMTIER={mt} is not an executable")
    redis_cmds = os.path.join(work, "redis.txt")
    mc_cmds = os.path.join(work, "mc.txt")
    with open(redis_cmds, "w") as f:
        f.write(f"GET {KEY}\n")
    with open(mc_cmds, "w") as f:
        f.write(f"get {KEY}\n")
    rurl, murl = f"redis://127.0.0.1:{rport}", f"memcached://127.0.0.1:{mport}"

    pipelines = [int(x) for x in os.environ.get("PIPELINES", "1,16").split(",")]
    print(f"# {common.machine_line()}")
    threads = os.environ.get("THREADS") or "default (one per core)"
    print(f"# GET of one existing 3-byte value, {c} connections, {n} requests a run, {rounds} rounds, "
          f"hakaru --threads {threads}")
    for p in pipelines:
        compare(hakaru, mt, (rport, mport), rurl, murl, redis_cmds, mc_cmds, n, c, p, rounds, work)


def compare(hakaru, mt, ports, rurl, murl, redis_cmds, mc_cmds, n, c, p, rounds, work):
    rport, mport = ports
    print(f"## pipeline {p}: hakaru -c {c * p} --pipeline {p}, redis-benchmark -c {c} -P {p}"
          + (f", memtier_benchmark -t 1 -c {c} --pipeline {p}" if mt else ""))
    rows = {"hakaru redis": [], "redis-benchmark": [], "hakaru memcached": []}
    if mt:
        rows["memtier redis"] = []
        rows["memtier memcached"] = []
    for r in range(rounds):
        order = ["hakaru", "rb"] if r % 2 == 0 else ["rb", "hakaru"]
        for tool in order:
            if tool == "hakaru":
                rows["hakaru redis"].append(
                    hakaru_run(hakaru, rurl, redis_cmds, n, c, p, work, f"h{p}-{r}"))
            else:
                rows["redis-benchmark"].append(redis_benchmark(rport, n, c, p, work, f"rb{p}-{r}"))
        rows["hakaru memcached"].append(
            hakaru_run(hakaru, murl, mc_cmds, n, c, p, work, f"m{p}-{r}"))
        if mt:
            rows["memtier redis"].append(memtier(mt, rport, "redis", n, c, p, work, f"mr{p}-{r}"))
            rows["memtier memcached"].append(
                memtier(mt, mport, "memcache_text", n, c, p, work, f"mm{p}-{r}"))
        h, b = rows["hakaru redis"][-1], rows["redis-benchmark"][-1]
        print(f"round {r + 1}: hakaru/redis-benchmark ops/s {h[0] / b[0]:.2f}, "
              f"CPU per op {h[1] / b[1]:.2f}")
    print(f"{'tool':<18}{'ops/s (median)':>16}{'client CPU µs/op':>18}{'user':>8}{'system':>8}")
    for name, vals in rows.items():
        ops, cpu, user, system = (common.median([v[i] for v in vals]) for i in range(4))
        print(f"{name:<18}{common.fmt(ops, '16.0f')}{common.fmt(cpu, '18.2f')}"
              f"{common.fmt(user, '8.2f')}{common.fmt(system, '8.2f')}")
    h, b = rows["hakaru redis"], rows["redis-benchmark"]
    ratio_ops = common.median([x[0] / y[0] for x, y in zip(h, b)])
    ratio_cpu = common.median([x[1] / y[1] for x, y in zip(h, b)])
    ratio_user = common.median([x[2] / y[2] for x, y in zip(h, b)])
    ratio_sys = common.median([x[3] / y[3] for x, y in zip(h, b)])
    print(f"pipeline {p}: hakaru / redis-benchmark (median of per-round ratios): "
          f"ops/s {ratio_ops:.2f}, CPU per op {ratio_cpu:.2f} (user {ratio_user:.2f}, "
          f"system {ratio_sys:.2f})")
    # What 0.8x of redis-benchmark's CPU leaves for hakaru's user time at its own
    # system time (each round's, median): the room user space has.
    room = common.median([0.8 * y[1] - x[3] for x, y in zip(h, b)])
    print(f"pipeline {p}: 0.8x redis-benchmark's CPU leaves hakaru {room:.2f} µs/op of user "
          f"time at its system time (it used {common.median([x[2] for x in h]):.2f})")
    if mt:
        for store in ("redis", "memcached"):
            h, m = rows[f"hakaru {store}"], rows[f"memtier {store}"]
            ratio_ops = common.median([x[0] / y[0] for x, y in zip(h, m)])
            ratio_cpu = common.median([x[1] / y[1] for x, y in zip(h, m)])
            print(f"pipeline {p}: hakaru / memtier_benchmark on {store} (median of per-round "
                  f"ratios): ops/s {ratio_ops:.2f}, CPU per op {ratio_cpu:.2f}")

if __name__ == "__main__":
    main()
