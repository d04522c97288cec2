"""The sender must outrun what it measures: `hakaru stream send` into a file against
`cat` of the same records, for 10-byte and 4 KiB records, and `hakaru watch`'s CPU per
byte and per record while a file grows, with and without --verify.

Knobs (environment): DIR (where the files go; default a temp dir under /dev/shm, so the
disk is not what is measured: DIR=/var/tmp/x to include it), SMALL_N (10-byte records,
default 10M), BIG_N (4 KiB records, default 250k), RUNS (median of, default 3), WATCH=0
(the sender against cat only, no watch), HAKARU (the binary; default target/release/hakaru).
Python 3 standard library only.
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import env_number, fmt, gnu_time, hakaru_binary, machine_line, median, timed_run  # noqa: E402


def cat_rate(data, target, tmp):
    """cat data > target: seconds of wall time."""
    if os.path.exists(target):
        os.remove(target)
    start = time.monotonic()
    with open(target, "wb") as out:
        subprocess.run(["cat", data], stdout=out, check=True)
    return time.monotonic() - start


def send_rate(hakaru, size, n, target, tmp):
    """hakaru stream send --to file:target: (wall s, CPU s)."""
    if os.path.exists(target):
        os.remove(target)
    argv = [hakaru, "stream", "send", "--to", f"file:{target}", "--record-size", str(size), "-n", str(n), "--json"]
    rc, text, cpu, _, wall = timed_run(argv, os.path.join(tmp, "send.out"), os.path.join(tmp, "send.time"), 600)
    if rc != 0:
        sys.exit(f"stream send failed:\n{text}")
    # The sender's own clock, first write to last: the send report's top-level elapsed_s
    # (full precision; the summary line rounds to 10 ms), the last one in the JSON.
    found = re.findall(r'"elapsed_s":\s*([0-9.eE+-]+)', text)
    return (float(found[-1]) if found else wall), cpu


def watch_cpu(hakaru, size, n, target, tmp, verify, by_size=False):
    """CPU seconds `hakaru watch file:target` spends while `stream send` writes n records."""
    if os.path.exists(target):
        os.remove(target)
    argv = [hakaru, "watch", f"file:{target}", "--interval", "1s", "--warmup", "0", "--window", "600s",
            "--expect", str(n), "--no-machine", "-q"]
    if verify:
        argv += ["--verify", "--senders", "1"]
    if by_size:
        argv += ["--record-size", str(size)]
    time_path = os.path.join(tmp, "watch.time")
    w = subprocess.Popen([gnu_time(), "-f", "%U %S", "-o", time_path] + argv,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(0.5)
    subprocess.run([hakaru, "stream", "send", "--to", f"file:{target}", "--record-size", str(size), "-n", str(n)],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    try:
        w.wait(timeout=600)
    except subprocess.TimeoutExpired:
        w.kill()
        sys.exit("watch did not end")
    with open(time_path) as f:
        u, s = f.read().strip().splitlines()[-1].split()
    return float(u) + float(s)


def main():
    small_n = int(env_number("SMALL_N", 10_000_000))
    big_n = int(env_number("BIG_N", 250_000))
    runs = int(env_number("RUNS", 3))
    hakaru = hakaru_binary()
    base = os.environ.get("DIR") or tempfile.mkdtemp(prefix="hakaru-bench-stream-", dir="/dev/shm")
    os.makedirs(base, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix="hakaru-bench-")
    print(f"# bench/stream.sh: {machine_line()}; files in {base}; median of {runs}")
    try:
        rows = []
        for size, n in ((10, small_n), (4096, big_n)):
            data = os.path.join(base, f"data-{size}.txt")
            with open(data, "wb") as out:
                subprocess.run([hakaru, "stream", "gen", "--record-size", str(size), "-n", str(n)],
                               stdout=out, stderr=subprocess.DEVNULL, check=True)
            target = os.path.join(base, "target.log")
            cat_s = median([cat_rate(data, target, tmp) for _ in range(runs)])
            sends = [send_rate(hakaru, size, n, target, tmp) for _ in range(runs)]
            send_s = median([s for s, _ in sends])
            send_cpu = median([c for _, c in sends])
            if os.environ.get("WATCH", "1") != "0":
                w_plain = median([watch_cpu(hakaru, size, n, target, tmp, False) for _ in range(runs)])
                w_verify = median([watch_cpu(hakaru, size, n, target, tmp, True) for _ in range(runs)])
                w_size = median([watch_cpu(hakaru, size, n, target, tmp, False, True) for _ in range(runs)])
            else:
                w_plain = w_verify = w_size = float("nan")
            os.remove(data)
            if os.path.exists(target):
                os.remove(target)
            rows.append((size, n, cat_s, send_s, send_cpu, w_plain, w_size, w_verify))
        print(f"{'record':>7} {'records':>11} {'cat rec/s':>12} {'send rec/s':>12} {'send MiB/s':>11}"
              f" {'send/cat':>9} {'watch s/GiB':>12} {'by size s/GiB':>14} {'verify rec/s/core':>18}")
        for size, n, cat_s, send_s, send_cpu, w_plain, w_size, w_verify in rows:
            mib = n * size / 2**20
            print(f"{size:>6}B {n:>11,} {fmt(n / cat_s, ',.0f'):>12} {fmt(n / send_s, ',.0f'):>12}"
                  f" {fmt(mib / send_s, ',.0f'):>11} {fmt(cat_s / send_s, '.2f'):>9}"
                  f" {fmt(w_plain / (mib / 1024), '.3f'):>12} {fmt(w_size / (mib / 1024), '.3f'):>14} {fmt(n / w_verify if w_verify > 0 else float('nan'), ',.0f'):>18}")
        print("watch s/GiB: the watch's CPU (user+sys) per GiB of file growth, reading and counting lines; "
              "by size: with --record-size (sizes only, nothing read); 0.05 = 5% of a core at 1 GiB/s. "
              "verify rec/s/core: records parsed and checked per CPU second.")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
        if not os.environ.get("DIR"):
            shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
