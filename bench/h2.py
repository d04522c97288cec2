"""hakaru --http2 side by side with h2load against one private nginx speaking h2c.

At each shape C×S (C connections, S concurrent streams on each) both tools keep C×S
requests in flight on C connections: h2load -c C -m S, hakaru -c C*S --streams S.
Both run on THREADS threads (default 1: the other core is nginx's). Rounds alternate
the tools; the table prints medians and the ratios hakaru ÷ h2load of req/s and of
client CPU per request (user+sys from GNU time, over the requests answered).

The single-worker nginx is the limit, so the table also gives nginx's own CPU per
request (user+sys from /proc over the run, over the requests the tool answered):
where a tool's req/s differs while nginx's CPU per request does not, the difference
is how the two processes shared the cores, not what the tool asked of nginx.

Knobs (environment): DURATION seconds per run (5), ROUNDS (3), THREADS (1),
SHAPES ("1x1,10x10,100x10"), URL_PATH ("index.html", the 1 KiB file; "204" is answered
with no body and no file, so nginx's cost per request falls to about the client's and the
client's own cost decides more of the req/s), HAKARU (the binary; target/release/hakaru by default),
COALESCE (e.g. 200us: hakaru runs with --coalesce, answers gathered that long a wake-up),
PIN=1 pins nginx to CPU 0 and each client to CPU 1 (taskset), so that the
scheduler's wake-affine placement (a client woken by nginx's write moved onto
nginx's CPU, preempting it) and other processes' load fall less on one tool than on
the other; KEEP=1 keeps the raw outputs.
"""

import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402


def shapes():
    raw = os.environ.get("SHAPES", "1x1,10x10,100x10")
    out = []
    for part in raw.split(","):
        m = re.fullmatch(r"\s*(\d+)x(\d+)\s*", part)
        if not m or int(m.group(1)) == 0 or int(m.group(2)) == 0:
            common.die(f"SHAPES: {part!r} is not CONNECTIONSxSTREAMS (e.g. 10x10)")
        out.append((int(m.group(1)), int(m.group(2))))
    return out


def hakaru_run(binary, url, conns, streams, dur, threads, base):
    argv = [binary, "run", "--http2", "--streams", str(streams), "-c", str(conns * streams),
            "-d", f"{dur}s", "--threads", str(threads), "-o", base + ".json", url]
    if os.environ.get("COALESCE"):
        argv[2:2] = ["--coalesce", os.environ["COALESCE"]]
    return argv


def parse_hakaru(text, base):
    with open(base + ".json") as f:
        step = json.load(f)["steps"][0]
    errors = sum(step["errors"].values())
    return step["responses"], step["qps"], errors, step.get("connections_http2", 0)


def h2load_run(binary, url, conns, streams, dur, threads, base):
    return [binary, "-c", str(conns), "-m", str(streams), "-t", str(threads),
            "-D", str(dur), url]


def parse_h2load(text, base):
    done = re.search(r"requests: (\d+) total, \d+ started, (\d+) done, (\d+) succeeded, "
                     r"(\d+) failed, (\d+) errored", text)
    rps = re.search(r"finished in [\d.]+\w*, ([\d.]+) req/s", text)
    if not done or not rps:
        return float("nan"), float("nan"), float("nan"), 0
    return int(done.group(3)), float(rps.group(1)), int(done.group(4)) + int(done.group(5)), 0


def main():
    if len(sys.argv) > 1:
        print(__doc__)
        sys.exit(0 if sys.argv[1] in ("-h", "--help") else 2)
    dur = common.env_number("DURATION", 5, int)
    rounds = common.env_number("ROUNDS", 3, int)
    threads = common.env_number("THREADS", 1, int)
    h2load = common.find_tool("h2load")
    if not h2load:
        common.die("h2load not found: apt-get install nghttp2-client")
    hakaru = common.hakaru_binary()
    pin = os.environ.get("PIN", "") not in ("", "0")
    if pin and (os.cpu_count() or 1) < 2:
        common.die("PIN=1 needs two CPUs (nginx on CPU 0, the client on CPU 1)")
    work = common.Workdir("hakaru-h2-bench-")
    nginx = common.Nginx(work.path, listen_flags="http2")
    url = nginx.url + os.environ.get("URL_PATH", "index.html")
    if pin:
        os.sched_setaffinity(nginx.proc.pid, {0})
    print(f"# hakaru --http2 vs h2load, nginx h2c ({nginx.version}), GET /{url.rsplit('/', 1)[1]}, {dur} s runs, "
          f"{rounds} rounds, {threads} client thread(s)"
          + (", nginx pinned to CPU 0 and the client to CPU 1" if pin else "")
          + (f", hakaru --coalesce {os.environ['COALESCE']}" if os.environ.get("COALESCE") else ""))
    print(f"# {common.machine_line()}")
    tools = [("hakaru", hakaru, hakaru_run, parse_hakaru),
             ("h2load", h2load, h2load_run, parse_h2load)]
    rows = []
    for conns, streams in shapes():
        per_tool = {name: [] for name, *_ in tools}
        for r in range(rounds):
            order = tools if r % 2 == 0 else list(reversed(tools))
            for name, binary, make, parse in order:
                base = os.path.join(work.path, f"{name}-{conns}x{streams}-{r}")
                argv = make(binary, url, conns, streams, dur, threads, base)
                if pin:
                    argv = ["taskset", "-c", "1"] + argv
                server0 = nginx.cpu_seconds()
                rc, text, cpu, rss_kb, wall = common.timed_run(
                    argv, base + ".out", base + ".time", timeout=dur * 3 + 30)
                server = nginx.cpu_seconds() - server0
                try:
                    ok, rps, errors, h2conns = parse(text, base)
                except (OSError, ValueError, KeyError):
                    ok, rps, errors, h2conns = float("nan"), float("nan"), float("nan"), 0
                us_per_req = cpu / ok * 1e6 if ok and ok == ok else float("nan")
                nginx_us = server / ok * 1e6 if ok and ok == ok else float("nan")
                per_tool[name].append(dict(rps=rps, us=us_per_req, errors=errors, nginx=nginx_us))
                print(f"  {conns}x{streams} round {r + 1}/{rounds} {name:<7}"
                      f" {common.fmt(rps, '9.0f')} req/s  {common.fmt(us_per_req, '6.2f')} µs CPU/req"
                      f"  nginx {common.fmt(nginx_us, '6.2f')} µs/req"
                      f"  errors {errors}  rc {rc}", file=sys.stderr)
                if not nginx.alive():
                    common.die("nginx died during the run")
        med = {n: {k: common.median([x[k] for x in v]) for k in ("rps", "us", "errors", "nginx")}
               for n, v in per_tool.items()}

        def ratios(key):
            return [a[key] / b[key] for a, b in zip(per_tool["hakaru"], per_tool["h2load"])
                    if b[key]]
        rps_rounds = ratios("rps")
        rows.append((conns, streams, med, common.median(rps_rounds), common.median(ratios("us")),
                     common.median(ratios("nginx")), rps_rounds))
    print()
    print("| connections × streams | hakaru req/s | h2load req/s | req/s ÷ h2load "
          "| hakaru µs CPU/req | h2load µs CPU/req | CPU/req ÷ h2load "
          "| nginx µs/req (hakaru, h2load) | nginx ÷ | errors (hakaru, h2load) |")
    print("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|")
    for conns, streams, med, rr, cr, nr, _ in rows:
        h, g = med["hakaru"], med["h2load"]
        print(f"| {conns} × {streams} | {common.fmt(h['rps'], '.0f')} | {common.fmt(g['rps'], '.0f')} "
              f"| {common.fmt(rr, '.2f')} | {common.fmt(h['us'], '.2f')} | {common.fmt(g['us'], '.2f')} "
              f"| {common.fmt(cr, '.2f')} | {common.fmt(h['nginx'], '.1f')}, {common.fmt(g['nginx'], '.1f')} "
              f"| {common.fmt(nr, '.2f')} "
              f"| {common.fmt(h['errors'], '.0f')}, {common.fmt(g['errors'], '.0f')} |")
    print()
    for conns, streams, *_, rps_rounds in rows:
        print(f"# {conns}x{streams} req/s ÷ h2load by round: "
              + ", ".join(common.fmt(x, ".2f") for x in rps_rounds))


if __name__ == "__main__":
    main()
