"""hakaru bulk beside the CouchDB chapter's own method and a keep-alive Python client.

Against the same pouchdb-server and Groonga (both private, on loopback, stopped by
their PIDs), one writer, batch sizes 100…10000 of {"foo":"bar"}:

* hakaru:  `hakaru bulk --ids server --batch-sizes B --count N` with N the documents
           the Python client wrote in D seconds (at least two batches), so no batch is
           cut off at a deadline; docs/s as it reports them (documents acknowledged ÷
           step time), under GNU time for its CPU;
* curl:    the chapter's method (benchbulk.sh): a shell loop posting one pre-built
           batch file with curl, a new process and connection per request;
* python:  http.client on one keep-alive connection posting the same pre-built body.

curl and python are counted by the server: documents present after − before, over
the loop's wall time. Every measurement writes into a fresh database (pouchdb) or
table (Groonga), so none pays for the data of another.

Each (server, batch) is measured ROUNDS times with the tools in a rotating order (a
shared machine and a server's own pauses swing single measurements by ±50%), and the
medians are printed.

Knobs (environment): DURATION seconds per measurement (10, the chapter's), ROUNDS (3), BATCHES
("100,1000,5000,10000"), HAKARU (binary; default target/release/hakaru, built if
missing), HAKARU_NPM_DIR (where pouchdb-server is installed; ~/.cache/hakaru-npm).
Python 3 standard library only.
"""

import http.client
import json
import os
import shutil
import signal
import subprocess
import sys
import time
import atexit

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import (  # noqa: E402
    Workdir, die, env_number, fmt, free_port, hakaru_binary, machine_line, median, timed_run,
    wait_listening,
)


def request(port, method, path, body=None, ctype="application/json"):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    headers = {"Content-Type": ctype} if body is not None else {}
    conn.request(method, path, body=body, headers=headers)
    resp = conn.getresponse()
    data = resp.read()
    conn.close()
    return resp.status, data


class Process:
    """A server process stopped by its own PID at exit."""

    def __init__(self, argv, port, cwd, name):
        self.proc = subprocess.Popen(argv, cwd=cwd, stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        atexit.register(self.stop)
        for sig in (signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, lambda *_: sys.exit(130))
        if not wait_listening(port, self.proc, timeout=20):
            self.stop()
            die(f"{name} did not start on 127.0.0.1:{port}")

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


class Pouch:
    name = "pouchdb-server"

    def __init__(self, workdir):
        npm = os.environ.get("HAKARU_NPM_DIR") or os.path.expanduser("~/.cache/hakaru-npm")
        program = os.path.join(npm, "node_modules", ".bin", "pouchdb-server")
        if not os.access(program, os.X_OK) or not shutil.which("node"):
            die(f"pouchdb-server not found in {npm}: npm install pouchdb-server --ignore-scripts there")
        d = os.path.join(workdir, "pouchdb")
        os.makedirs(d)
        config = os.path.join(d, "config.json")
        with open(config, "w") as f:
            json.dump({"log": {"file": os.path.join(d, "log.txt"), "level": "warning"}}, f)
        self.port = free_port()
        self.server = Process([program, "--host", "127.0.0.1", "--port", str(self.port),
                               "--dir", os.path.join(d, "data"), "--config", config],
                              self.port, d, self.name)
        # Listening is not answering: wait for GET / to say 200.
        for _ in range(100):
            try:
                if request(self.port, "GET", "/")[0] == 200:
                    break
            except OSError:
                pass
            time.sleep(0.1)

    def fresh(self, name):
        status, body = request(self.port, "PUT", f"/{name}")
        if status != 201:
            die(f"pouchdb-server: PUT /{name} answered {status}: {body[:200]!r}")
        return name

    def count(self, name):
        return json.loads(request(self.port, "GET", f"/{name}")[1])["doc_count"]

    def body(self, batch):
        return json.dumps({"docs": [{"foo": "bar"}] * batch}).encode()

    def path(self, name):
        return f"/{name}/_bulk_docs"

    def hakaru_args(self, name):
        return ["--target", "couchdb", f"http://127.0.0.1:{self.port}/{name}"]


class Groonga:
    name = "Groonga"

    def __init__(self, workdir):
        if not shutil.which("groonga"):
            die("groonga not found: apt-get install groonga-bin")
        d = os.path.join(workdir, "groonga")
        os.makedirs(d)
        db = os.path.join(d, "db")
        subprocess.run(["groonga", "-n", db], input=b"", check=True,
                       stdout=subprocess.DEVNULL)
        self.port = free_port()
        self.server = Process(["groonga", "--protocol", "http", "-s", "--bind-address",
                               "127.0.0.1", "-p", str(self.port), "--log-path",
                               os.path.join(d, "groonga.log"), "--query-log-path",
                               os.path.join(d, "query.log"), db],
                              self.port, d, self.name)

    def fresh(self, name):
        # No key: documents are appended as the chapter's are, with no ID to give.
        for cmd in (f"/d/table_create?name={name}&flags=TABLE_NO_KEY",
                    f"/d/column_create?table={name}&name=foo&flags=COLUMN_SCALAR&type=ShortText"):
            status, body = request(self.port, "GET", cmd)
            if status != 200:
                die(f"Groonga: {cmd} answered {status}: {body[:200]!r}")
        return name

    def count(self, name):
        body = request(self.port, "GET", f"/d/select?table={name}&limit=0&output_columns=_id")[1]
        return json.loads(body)[1][0][0][0]

    def body(self, batch):
        return json.dumps([{"foo": "bar"}] * batch).encode()

    def path(self, name):
        return f"/d/load?table={name}"

    def hakaru_args(self, name):
        return ["--target", "groonga", f"http://127.0.0.1:{self.port}", "--table", name]


def run_hakaru(binary, server, name, batch, count, duration, wd):
    argv = [binary, "bulk", *server.hakaru_args(name), "--ids", "server",
            "--batch-sizes", str(batch), "--writers", "1", "--count", str(count),
            "--threads", "1", "-o", os.path.join(wd, f"{name}.csv")]
    rc, text, cpu, _, wall = timed_run(argv, os.path.join(wd, f"{name}.out"),
                                       os.path.join(wd, f"{name}.time"), duration * 10 + 120)
    if rc not in (0, 1):
        die(f"hakaru bulk failed ({rc}):\n{text}")
    with open(os.path.join(wd, f"{name}.json")) as f:
        step = json.load(f)["steps"][0]
    docs = step["bulk"]["docs_acknowledged"]
    return step["bulk"]["docs_per_s"], cpu, docs, wall


def run_curl(server, name, batch, duration, wd):
    body_path = os.path.join(wd, f"{name}.batch.json")
    with open(body_path, "wb") as f:
        f.write(server.body(batch))
    url = f"http://127.0.0.1:{server.port}{server.path(name)}"
    # benchbulk.sh's loop: one curl per batch, a new process and connection each time.
    script = (f'end=$((SECONDS+{duration})); while [ $SECONDS -lt $end ]; do '
              f'curl -s -o /dev/null -X POST -H "Content-Type: application/json" '
              f'--data-binary @{body_path} "{url}"; done')
    before = server.count(name)
    start = time.monotonic()
    subprocess.run(["bash", "-c", script], check=True)
    wall = time.monotonic() - start
    return (server.count(name) - before) / wall


def run_python(server, name, batch, duration):
    body = server.body(batch)
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=120)
    headers = {"Content-Type": "application/json"}
    before = server.count(name)
    start = time.monotonic()
    while time.monotonic() - start < duration:
        conn.request("POST", server.path(name), body=body, headers=headers)
        resp = conn.getresponse()
        resp.read()
    wall = time.monotonic() - start
    conn.close()
    return (server.count(name) - before) / wall


def main():
    duration = int(env_number("DURATION", 10, int))
    rounds = int(env_number("ROUNDS", 3, int))
    batches = [int(b) for b in os.environ.get("BATCHES", "100,1000,5000,10000").split(",")]
    if not shutil.which("curl"):
        die("curl not found: apt-get install curl")
    binary = hakaru_binary()
    wd = Workdir("hakaru-bench-bulk-").path
    servers = [Pouch(wd), Groonga(wd)]
    cores = os.cpu_count() or 1
    print(f"# hakaru bulk vs curl loop vs Python keep-alive: {machine_line()}")
    print(f"# one writer, {{\"foo\":\"bar\"}}, {duration} s per measurement (hakaru: the "
          f"documents Python wrote in that time), medians of {rounds} rounds; docs/s: hakaru "
          "as it reports, curl and Python by the server's count")
    print()
    print("| server | batch | hakaru docs/s | curl loop docs/s | Python docs/s | "
          "hakaru ÷ curl | hakaru ÷ Python | hakaru CPU/doc | hakaru CPU share |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for server in servers:
        for batch in batches:
            tag = "pouch" if isinstance(server, Pouch) else "groonga"
            got = {"hakaru": [], "curl": [], "python": [], "cpu_doc": [], "share": []}
            # Python first in round 0: hakaru's --count needs its figure.
            p_first = run_python(server, server.fresh(f"p_{tag}_{batch}_0"), batch, duration)
            got["python"].append(p_first)
            count = max(2, round(p_first * duration / batch)) * batch
            order = ["curl", "hakaru", "python"]
            for rnd in range(rounds):
                for tool in order[rnd % 3:] + order[:rnd % 3]:
                    name = server.fresh(f"{tool[0]}_{tag}_{batch}_{rnd + 1}")
                    if tool == "python" and rnd == 0:
                        continue
                    if tool == "python":
                        got["python"].append(run_python(server, name, batch, duration))
                    elif tool == "curl":
                        got["curl"].append(run_curl(server, name, batch, duration, wd))
                    else:
                        rate, cpu, docs, wall = run_hakaru(binary, server, name, batch, count,
                                                           duration, wd)
                        got["hakaru"].append(rate)
                        got["cpu_doc"].append(cpu / docs * 1e6 if docs else float("nan"))
                        got["share"].append(cpu / (wall * cores) * 100 if wall > 0
                                            else float("nan"))
            h_rate, c_rate, p_rate = (median(got[k]) for k in ("hakaru", "curl", "python"))
            per_doc_us, share = median(got["cpu_doc"]), median(got["share"])
            print(f"| {server.name} | {batch} | {h_rate:.0f} | {c_rate:.0f} | {p_rate:.0f} | "
                  f"{fmt(h_rate / c_rate if c_rate else float('nan'), '.2f')}× | "
                  f"{fmt(h_rate / p_rate if p_rate else float('nan'), '.2f')}× | "
                  f"{fmt(per_doc_us, '.2f')} µs | {fmt(share, '.1f')}% |", flush=True)
    print()
    print("hakaru CPU/doc: its user+sys CPU (GNU time, the whole process, 10 ms "
          "resolution) ÷ documents acknowledged; CPU share: of all "
          f"{cores} cores over its wall time.")


if __name__ == "__main__":
    main()
