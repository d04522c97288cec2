#!/usr/bin/env python3
"""hakaru pgbench beside Debian's pgbench 15 against one private PostgreSQL 15.

Both tools run the same command line, `-n -M prepared -c C -j J -T DUR` with `-S`
(select-only) or the default tpcb-like, at C = 1, 16 and 64 clients (J = min(C, 2)
threads), against one server initialised once by `pgbench -i -s SCALE`. Per run:
transactions per second from each tool's own `tps = ...` line, and the client's
user+sys CPU from GNU time over `number of transactions actually processed`, as µs
per transaction. Rounds interleave the two tools (the order alternating per round);
medians and their ratios (hakaru / pgbench) are printed as a table, with the user-space
part of the CPU apart and the kernel floor: hakaru's system time over pgbench's whole
CPU, the ratio hakaru would have if its user space cost nothing (both make the same
socket calls, so most of a transaction's client CPU is the kernel's, not the tool's).

The server runs as Debian's `postgres` user when we are root (FIELD-NOTES.md:
PostgreSQL refuses root), in a private directory, loopback only, fsync off; it is
stopped by its PID at exit.

Environment: ROUNDS (3), DURATION (5 s), SCALE (10), CLIENTS (1,16,64),
HAKARU (binary; target/release/hakaru, built if missing), PG_BIN
(/usr/lib/postgresql/15/bin), KEEP=1 keeps the raw outputs, FLAGS adds flags to both tools (FLAGS=-l: the
per-transaction logs, written in the run's directory).
Needs: postgresql-15, GNU time.
"""

import atexit
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402

PG_BIN = os.environ.get("PG_BIN", "/usr/lib/postgresql/15/bin")
USER, PASSWORD = "bench", "bench-pw"


def as_postgres(argv):
    """argv run as Debian's postgres user when we are root (the server refuses root)."""
    return ["runuser", "-u", "postgres", "--"] + argv if os.geteuid() == 0 else argv


class Postgres:
    """A private cluster on a free loopback port, stopped by its postmaster's PID."""

    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix="hakaru-bench-pg-")
        os.chmod(self.dir, 0o755)
        pw = os.path.join(self.dir, "pw")
        with open(pw, "w") as f:
            f.write(PASSWORD + "\n")
        os.chmod(pw, 0o644)
        if os.geteuid() == 0:
            subprocess.check_call(["chown", "postgres", self.dir])
        data = os.path.join(self.dir, "data")
        subprocess.check_call(
            as_postgres([f"{PG_BIN}/initdb", "-D", data, "-U", USER, f"--pwfile={pw}",
                         "--auth-local=trust", "--auth-host=scram-sha-256"]),
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.port = common.free_port()
        log = open(os.path.join(self.dir, "log"), "wb")
        self.proc = subprocess.Popen(
            as_postgres([f"{PG_BIN}/postgres", "-D", data, "-p", str(self.port), "-k", self.dir,
                         "-c", "listen_addresses=127.0.0.1", "-c", "fsync=off",
                         "-c", "synchronous_commit=off", "-c", "max_connections=200"]),
            stdin=subprocess.DEVNULL, stdout=log, stderr=log)
        atexit.register(self.stop)
        for sig in (signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, lambda *_: sys.exit(130))
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.5).close()
                if subprocess.call([f"{PG_BIN}/pg_isready", "-q", "-h", "127.0.0.1",
                                    "-p", str(self.port)]) == 0:
                    return
            except OSError:
                pass
            time.sleep(0.2)
        common.die("PostgreSQL did not start within 30 s")

    def stop(self):
        if self.proc.poll() is None:
            # runuser forwards SIGTERM to the postmaster: a smart shutdown.
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        subprocess.call(["rm", "-rf", self.dir])


def conn_args(pg):
    return ["-h", "127.0.0.1", "-p", str(pg.port), "-U", USER]


def parse(text):
    tps = re.search(r"^tps = ([0-9.]+) \(without initial connection time\)", text, re.M)
    done = re.search(r"^number of transactions actually processed: ([0-9]+)", text, re.M)
    if not tps or not done:
        return float("nan"), 0
    return float(tps.group(1)), int(done.group(1))


def main():
    rounds = common.env_number("ROUNDS", 3, int)
    duration = common.env_number("DURATION", 5, int)
    scale = common.env_number("SCALE", 10, int)
    clients = [int(c) for c in os.environ.get("CLIENTS", "1,16,64").split(",")]
    # More flags for both tools, e.g. FLAGS=-l (each writes its logs in the run's dir).
    extra = os.environ.get("FLAGS", "").split()
    hakaru = common.hakaru_binary()
    pgbench = f"{PG_BIN}/pgbench"
    os.environ["PGPASSWORD"] = PASSWORD
    pg = Postgres()
    subprocess.check_call([pgbench, "-i", "-q", "-s", str(scale)] + conn_args(pg) + ["postgres"],
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    out = tempfile.mkdtemp(prefix="hakaru-bench-sql-")
    os.chdir(out)
    scripts = [("select-only", ["-S"]), ("tpcb-like", [])]
    tools = [("pgbench", [pgbench]), ("hakaru", [hakaru, "pgbench"])]
    cells = {}  # (script, clients, tool) -> [(tps, cpu, user, sys µs/txn)]
    print(f"# {common.machine_line()}; PostgreSQL 15 on loopback, scale {scale}, "
          f"-T {duration}, {rounds} rounds{', ' + ' '.join(extra) if extra else ''}", flush=True)
    for r in range(rounds):
        for name, flags in scripts:
            for c in clients:
                order = tools if (r + c) % 2 == 0 else tools[::-1]
                for tool, argv in order:
                    args = argv + ["-n", "-M", "prepared", "-c", str(c), "-j", str(min(c, 2)),
                                   "-T", str(duration)] + flags + extra + conn_args(pg) + ["postgres"]
                    base = os.path.join(out, f"{tool}-{name}-{c}-{r}")
                    rc, text, cpu, _, _ = common.timed_run(args, base + ".out", base + ".time",
                                                           duration * 4 + 30)
                    tps, done = parse(text)
                    if rc != 0 or done == 0:
                        print(f"{tool} {name} -c {c}: exit {rc}\n{text[-2000:]}", file=sys.stderr)
                    per = cpu / done * 1e6 if done else float("nan")
                    user, system = (x / done * 1e6 if done else float("nan")
                                    for x in common.user_sys(base + ".time"))
                    cells.setdefault((name, c, tool), []).append((tps, per, user, system))
                    print(f"round {r + 1} {name:11} -c {c:<3} {tool:8} {tps:10.1f} tps "
                          f"{common.fmt(per, '.2f'):>7} µs CPU/txn, {common.fmt(user, '.2f')} user", flush=True)
    print()
    print("| script | clients | pgbench tps | hakaru tps | "
          + common.CPU_COLUMNS.format(peer="pgbench") + " |")
    print("|---" * 12 + "|")
    for name, _ in scripts:
        for c in clients:
            p = common.cpu_cells(cells[(name, c, "pgbench")])
            h = common.cpu_cells(cells[(name, c, "hakaru")])
            print(f"| {name} | {c} | {p[0]:.0f} | {h[0]:.0f} | {common.cpu_ratios(p, h)} |")
    if os.environ.get("KEEP"):
        print(f"\nraw outputs kept in {out}")
    else:
        subprocess.call(["rm", "-rf", out])


if __name__ == "__main__":
    main()
