#!/usr/bin/env python3
"""hakaru sysbench beside Debian's sysbench 1.0.20 on one private MariaDB 10.11 and
one private PostgreSQL 15.

Both tools run the same command line, `oltp_point_select` and `oltp_read_write`
with `--tables=TABLES --table-size=TABLE_SIZE --threads=T --time=DURATION run`, at
T = 1, 16 and 64 threads, against tables Debian's sysbench prepared once per
server. Per run: transactions per second from each tool's own `transactions: N
(X per sec.)` line, and the client's user+sys CPU (GNU time, which reads the
process's /proc accounting at exit) over N, as µs per transaction. Rounds
interleave the two tools (the order alternating per round); medians and their
ratios (hakaru / sysbench) are printed as a table, with user time apart and the
kernel floor (hakaru's system time over sysbench's whole CPU), as bench/sql.py's.

MariaDB runs as FIELD-NOTES.md says (as root, a private datadir, loopback only,
`--innodb-flush-log-at-trx-commit=2`), PostgreSQL as bench/sql.py starts it; both
are stopped by their PID at exit.

Environment: ROUNDS (3), DURATION (5 s), THREADS (1,16,64), TABLES (4),
TABLE_SIZE (10000), DBS (mariadb,pgsql), TESTS (oltp_point_select,oltp_read_write),
HAKARU (binary; target/release/hakaru, built if missing), KEEP=1 keeps the raw
outputs. Needs: mariadb-server, postgresql-15, sysbench, GNU time.
"""

import atexit
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402
import sql  # noqa: E402  (its Postgres: the same server as the pgbench part's)

USER, PASSWORD = "bench", "bench-pw"


class Mariadb:
    """A private MariaDB on a free loopback port, stopped by mariadbd's PID."""

    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix="hakaru-bench-mariadb-")
        data, tmp = os.path.join(self.dir, "data"), os.path.join(self.dir, "tmp")
        os.mkdir(tmp)
        subprocess.check_call(
            ["mariadb-install-db", "--no-defaults", f"--datadir={data}", "--user=root",
             "--auth-root-authentication-method=normal", "--skip-test-db", f"--tmpdir={tmp}"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.port = common.free_port()
        self.sock = os.path.join(self.dir, "sock")
        log = open(os.path.join(self.dir, "log"), "wb")
        self.proc = subprocess.Popen(
            ["/usr/sbin/mariadbd", "--no-defaults", f"--datadir={data}", "--user=root",
             "--bind-address=127.0.0.1", f"--port={self.port}", f"--socket={self.sock}",
             f"--tmpdir={tmp}", f"--pid-file={self.dir}/pid", "--skip-log-bin",
             "--innodb-flush-log-at-trx-commit=2", "--skip-name-resolve",
             "--max-connections=300", "--innodb-buffer-pool-size=256M"],
            stdin=subprocess.DEVNULL, stdout=log, stderr=log)
        atexit.register(self.stop)
        if not common.wait_listening(self.port, self.proc, 30):
            common.die("MariaDB did not start within 30 s")
        self.sql(f"CREATE DATABASE bench; CREATE USER '{USER}'@'%' IDENTIFIED BY '{PASSWORD}'; "
                 f"GRANT ALL ON *.* TO '{USER}'@'%'")

    def sql(self, text):
        subprocess.check_call(["mariadb", "--no-defaults", "-uroot", f"--socket={self.sock}",
                               "-e", text], stdin=subprocess.DEVNULL)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        shutil.rmtree(self.dir, ignore_errors=True)


def conn_args(db, server):
    """sysbench's connection flags, which hakaru sysbench takes unchanged."""
    if db == "mariadb":
        return ["--db-driver=mysql", "--mysql-host=127.0.0.1", f"--mysql-port={server.port}",
                f"--mysql-user={USER}", f"--mysql-password={PASSWORD}", "--mysql-db=bench"]
    return ["--db-driver=pgsql", "--pgsql-host=127.0.0.1", f"--pgsql-port={server.port}",
            f"--pgsql-user={USER}", f"--pgsql-password={PASSWORD}", "--pgsql-db=postgres"]


def parse(text):
    """(transactions per second, transactions) from sysbench's report, either tool's."""
    m = re.search(r"^\s*transactions:\s+([0-9]+)\s+\(([0-9.]+) per sec\.\)", text, re.M)
    if not m:
        return float("nan"), 0
    return float(m.group(2)), int(m.group(1))


def main():
    rounds = common.env_number("ROUNDS", 3, int)
    duration = common.env_number("DURATION", 5, int)
    tables = common.env_number("TABLES", 4, int)
    size = common.env_number("TABLE_SIZE", 10000, int)
    threads = [int(t) for t in os.environ.get("THREADS", "1,16,64").split(",")]
    dbs = os.environ.get("DBS", "mariadb,pgsql").split(",")
    tests = os.environ.get("TESTS", "oltp_point_select,oltp_read_write").split(",")
    hakaru = common.hakaru_binary()
    peer = shutil.which("sysbench") or common.die("sysbench not found: apt-get install sysbench")
    servers = {}
    for db in dbs:
        servers[db] = Mariadb() if db == "mariadb" else sql.Postgres()
        table_flags = [f"--tables={tables}", f"--table-size={size}"]
        subprocess.check_call([peer, "oltp_read_write"] + conn_args(db, servers[db]) + table_flags
                              + ["prepare"], stdout=subprocess.DEVNULL)
    out = tempfile.mkdtemp(prefix="hakaru-bench-sysbench-")
    tools = [("sysbench", [peer]), ("hakaru", [hakaru, "sysbench"])]
    cells = {}  # (db, test, threads, tool) -> [(tps, cpu, user, sys µs/txn)]
    print(f"# {common.machine_line()}; {' and '.join(dbs)} on loopback, {tables} tables of "
          f"{size} rows, --time={duration}, {rounds} rounds", flush=True)
    for r in range(rounds):
        for db in dbs:
            for test in tests:
                for t in threads:
                    order = tools if (r + t) % 2 == 0 else tools[::-1]
                    for tool, argv in order:
                        args = argv + [test] + conn_args(db, servers[db]) + [
                            f"--tables={tables}", f"--table-size={size}", f"--threads={t}",
                            f"--time={duration}", "run"]
                        base = os.path.join(out, f"{tool}-{db}-{test}-{t}-{r}")
                        rc, text, cpu, _, _ = common.timed_run(args, base + ".out", base + ".time",
                                                               duration * 4 + 30)
                        tps, done = parse(text)
                        if rc != 0 or done == 0:
                            print(f"{tool} {db} {test} --threads={t}: exit {rc}\n{text[-2000:]}",
                                  file=sys.stderr)
                        per = cpu / done * 1e6 if done else float("nan")
                        user, system = (x / done * 1e6 if done else float("nan")
                                        for x in common.user_sys(base + ".time"))
                        cells.setdefault((db, test, t, tool), []).append((tps, per, user, system))
                        print(f"round {r + 1} {db:7} {test:17} -t {t:<3} {tool:8} {tps:10.1f} tps "
                              f"{common.fmt(per, '.2f'):>7} µs CPU/txn, {common.fmt(user, '.2f')} user", flush=True)
    print()
    print("| db | test | threads | sysbench tps | hakaru tps | "
          + common.CPU_COLUMNS.format(peer="sysbench") + " |")
    print("|---" * 13 + "|")
    for db in dbs:
        for test in tests:
            for t in threads:
                s = common.cpu_cells(cells[(db, test, t, "sysbench")])
                h = common.cpu_cells(cells[(db, test, t, "hakaru")])
                print(f"| {db} | {test} | {t} | {s[0]:.0f} | {h[0]:.0f} | {common.cpu_ratios(s, h)} |")
    if os.environ.get("KEEP"):
        print(f"\nraw outputs kept in {out}")
    else:
        shutil.rmtree(out, ignore_errors=True)


if __name__ == "__main__":
    main()
