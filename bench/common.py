"""Shared pieces of the bench/ scripts: a private nginx or embedded target, timed runs, medians.

Python 3 standard library only, so the benchmarks run on a fresh machine after
`apt-get install nginx wrk apache2-utils` (plus `time` for /usr/bin/time).
"""

import atexit
import os
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# A small static file: the size of a typical tiny API answer, well under one packet.
STATIC_BODY = b"hakaru bench: a small static file served by nginx for load generators.\n"


def die(msg):
    print(f"{os.path.basename(sys.argv[0])}: {msg}", file=sys.stderr)
    sys.exit(2)


def env_number(name, default, kind=float):
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = kind(raw)
    except ValueError:
        die(f"{name}={raw!r} is not a number")
    if value <= 0:
        die(f"{name}={raw!r} must be positive")
    return value


def find_tool(name):
    """A peer tool on PATH, or where `go install` / `cargo install` put it."""
    found = shutil.which(name)
    if found:
        return found
    for d in (os.path.expanduser("~/go/bin"), os.path.expanduser("~/.cargo/bin")):
        path = os.path.join(d, name)
        if os.access(path, os.X_OK):
            return path
    return None


def gnu_time():
    """/usr/bin/time (GNU): the only way to get user+sys CPU and peak RSS of any tool alike."""
    path = "/usr/bin/time"
    if not os.access(path, os.X_OK):
        die("/usr/bin/time not found: apt-get install time")
    return path


def hakaru_binary():
    """The release build of hakaru ($HAKARU overrides); built here if missing."""
    path = os.environ.get("HAKARU") or os.path.join(REPO, "target", "release", "hakaru")
    if not os.access(path, os.X_OK):
        if os.environ.get("HAKARU"):
            die(f"HAKARU={path} is not an executable")
        print("building hakaru (cargo build --release) ...", file=sys.stderr)
        rc = subprocess.call(["cargo", "build", "--release"], cwd=REPO)
        if rc != 0 or not os.access(path, os.X_OK):
            die("cargo build --release failed")
    # Absolute: a bench may run its tools in a directory of its own (sql.py's -l).
    return os.path.abspath(path)


def free_port():
    # Port 0 then close: a tiny race with other processes, acceptable on a bench machine.
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_listening(port, proc, timeout=10.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            return False
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return True
        except OSError:
            time.sleep(0.05)
    return False


class Workdir:
    """A temporary folder removed at exit unless KEEP=1 (then its path is printed)."""

    def __init__(self, prefix):
        self.path = tempfile.mkdtemp(prefix=prefix)
        atexit.register(self._cleanup)

    def _cleanup(self):
        sys.stdout.flush()
        if os.environ.get("KEEP") == "1":
            print(f"raw outputs kept in {self.path}", file=sys.stderr)
        else:
            shutil.rmtree(self.path, ignore_errors=True)


class Nginx:
    """One nginx process (no master, no daemon, one worker) on a free loopback port.

    Stopped by its own PID at exit, never by name.
    """

    def __init__(self, workdir, listen_flags=""):
        """listen_flags: added to the listen line ("http2" for h2c, bench/h2.py)."""
        binary = shutil.which("nginx") or "/usr/sbin/nginx"
        if not os.access(binary, os.X_OK):
            die("nginx not found: apt-get install nginx")
        self.dir = os.path.join(workdir, "nginx")
        html = os.path.join(self.dir, "html")
        tmp = os.path.join(self.dir, "tmp")
        os.makedirs(html)
        os.makedirs(tmp)
        with open(os.path.join(html, "index.html"), "wb") as f:
            f.write(STATIC_BODY)
        self.port = free_port()
        # As root nginx would otherwise switch to user nobody, which cannot read our temp dir.
        user = "user root root;\n" if os.geteuid() == 0 else ""
        d = self.dir
        conf = f"""{user}master_process off;
daemon off;
worker_processes 1;
worker_rlimit_nofile 32768;
pid {d}/nginx.pid;
error_log {d}/error.log warn;
events {{ worker_connections 16384; }}
http {{
    access_log off;
    keepalive_requests 1000000;
    keepalive_timeout 65;
    client_body_temp_path {tmp}/body;
    proxy_temp_path {tmp}/proxy;
    fastcgi_temp_path {tmp}/fastcgi;
    uwsgi_temp_path {tmp}/uwsgi;
    scgi_temp_path {tmp}/scgi;
    default_type text/html;
    server {{
        listen 127.0.0.1:{self.port} {listen_flags};
        root {html};
        location / {{ }}
        # No file, no body: the cheapest answer nginx gives (bench/h2.py URL_PATH=204).
        location = /204 {{ return 204; }}
    }}
}}
"""
        conf_path = os.path.join(d, "nginx.conf")
        with open(conf_path, "w") as f:
            f.write(conf)
        self.proc = subprocess.Popen(
            [binary, "-p", d, "-e", os.path.join(d, "error.log"), "-c", conf_path],
            stdout=subprocess.DEVNULL,
            stderr=open(os.path.join(d, "stderr.log"), "wb"),
        )
        atexit.register(self.stop)
        for sig in (signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, lambda *_: sys.exit(130))
        if not wait_listening(self.port, self.proc):
            self.stop()
            with open(os.path.join(d, "stderr.log"), "rb") as f:
                err = f.read().decode(errors="replace")
            die(f"nginx did not start on 127.0.0.1:{self.port}: {err.strip()}")
        self.url = f"http://127.0.0.1:{self.port}/"
        self.version = (
            subprocess.run([binary, "-v"], capture_output=True, text=True).stderr.strip()
        )

    def alive(self):
        return self.proc.poll() is None

    def cpu_seconds(self):
        """nginx's own user+sys CPU so far, from /proc (to tell when the server is the limit)."""
        try:
            with open(f"/proc/{self.proc.pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        except (OSError, IndexError, ValueError):
            return float("nan")

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


class Serve:
    """`hakaru serve` (the embedded target) on a free loopback port, stopped by its PID at exit.

    It binds port 0 and prints "hakaru target listening on http://ADDR" first; that
    line gives the URL.
    """

    def __init__(self, binary, workdir):
        self.log_path = os.path.join(workdir, "serve.err")
        self.proc = subprocess.Popen([binary, "serve", "--bind", "127.0.0.1:0"],
                                     stdout=subprocess.PIPE, stderr=open(self.log_path, "wb"))
        atexit.register(self.stop)
        for sig in (signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, lambda *_: sys.exit(130))
        line = self.proc.stdout.readline().decode(errors="replace")
        m = re.search(r"listening on (http://\S+)", line)
        if not m:
            self.stop()
            die(f"hakaru serve did not start: {line.strip()!r}; see {self.log_path}")
        self.url = m.group(1) + "/"

    def alive(self):
        return self.proc.poll() is None

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def timed_run(argv, out_path, time_path, timeout):
    """Run argv under GNU time; returns (returncode, output text, user+sys s, peak RSS KB, wall s)."""
    cmd = [gnu_time(), "-f", "%U %S %M", "-o", time_path] + argv
    start = time.monotonic()
    with open(out_path, "wb") as out:
        try:
            proc = subprocess.run(cmd, stdout=out, stderr=subprocess.STDOUT, timeout=timeout)
            rc = proc.returncode
        except subprocess.TimeoutExpired:
            rc = -1
    wall = time.monotonic() - start
    with open(out_path, "rb") as f:
        text = f.read().decode(errors="replace")
    cpu, rss_kb = float("nan"), float("nan")
    try:
        with open(time_path) as f:
            # GNU time prefixes "Command exited with non-zero status N" on its own line.
            last = f.read().strip().splitlines()[-1].split()
        cpu = float(last[0]) + float(last[1])
        rss_kb = float(last[2])
    except (OSError, IndexError, ValueError):
        pass
    return rc, text, cpu, rss_kb, wall


def user_sys(time_path):
    """User and system CPU seconds from a GNU time file written by timed_run ("%U %S %M")."""
    try:
        with open(time_path) as f:
            last = f.read().strip().splitlines()[-1].split()
        return float(last[0]), float(last[1])
    except (OSError, IndexError, ValueError):
        return float("nan"), float("nan")


def cpu_cells(rows):
    """Medians of [(tps, total, user, system) per run]: (tps, total, user, system) µs/txn."""
    return tuple(median([r[i] for r in rows]) for i in range(4))


CPU_COLUMNS = ("tps ratio | {peer} CPU µs/txn | hakaru CPU µs/txn | CPU ratio "
               "| {peer} user µs/txn | hakaru user µs/txn | user ratio | kernel floor")


def cpu_ratios(peer, ours):
    """The table's ratio cells for one row, from two cpu_cells. The kernel floor is
    hakaru's system time over the peer's whole CPU: the CPU ratio hakaru would have if
    its user space cost nothing, since both make the same socket calls."""
    pt, pc, pu, _ = peer
    ht, hc, hu, hs = ours
    return (f"{ht / pt:.2f}× | {pc:.2f} | {hc:.2f} | {hc / pc:.2f}× | {pu:.2f} | {hu:.2f} "
            f"| {hu / pu:.2f}× | {hs / pc:.2f}×")


def timed_split(argv, base, timeout):
    """Run argv under GNU time, output to base.out: (output, user s, system s, context switches)."""
    cmd = [gnu_time(), "-f", "%U %S %w %c", "-o", base + ".time"] + argv
    with open(base + ".out", "wb") as out:
        subprocess.run(cmd, stdout=out, stderr=subprocess.STDOUT, timeout=timeout)
    with open(base + ".out", "rb") as f:
        text = f.read().decode(errors="replace")
    with open(base + ".time") as f:
        user, system, voluntary, forced = f.read().strip().splitlines()[-1].split()
    return text, float(user), float(system), int(voluntary) + int(forced)


def median(values):
    values = [v for v in values if v == v]  # drop NaN
    return statistics.median(values) if values else float("nan")


def machine_line():
    model = "unknown CPU"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return f"{os.cpu_count()} cores, {model}, {time.strftime('%Y-%m-%d %H:%M %Z')}"


def fmt(value, spec):
    return "-" if value != value else format(value, spec)
