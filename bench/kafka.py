"""hakaru's Kafka sink (`stream send --to kafka://…`) beside Kafka's own producer
benchmark (`org.apache.kafka.tools.ProducerPerformance`), on one private single-node
broker (KRaft, loopback): the same records (SIZE bytes: hakaru's include the newline it
does not send, so ProducerPerformance sends SIZE-1), count, acks, linger and batch size.
ProducerPerformance runs twice: with the Java producer's own defaults (batch.size 16 KiB,
linger.ms 0 in Kafka 3.9), as people run it, and with hakaru's settings (linger.ms 5,
batch.size 1,000,000, librdkafka's defaults).

Knobs (environment): N (records per run, default 500k), SIZE (bytes, default 1024),
ACKS (0, 1 or all; default 1), PARTITIONS (default 1), RUNS (median of, default 3),
KAFKA_LIBS (the jars; default $HAKARU_KAFKA_LIBS or ~/.cache/hakaru-kafka/libs).
Python 3 standard library only.
"""

import base64
import os
import re
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import Workdir, die, env_number, fmt, free_port, hakaru_binary, machine_line, median, wait_listening  # noqa: E402

LOG4J = """log4j.rootLogger=WARN, stderr
log4j.appender.stderr=org.apache.log4j.ConsoleAppender
log4j.appender.stderr.Target=System.err
log4j.appender.stderr.layout=org.apache.log4j.PatternLayout
log4j.appender.stderr.layout.ConversionPattern=[%d] %p %m (%c)%n
"""


def java(libs, work, heap="512m"):
    return ["java", f"-Xmx{heap}", f"-Dlog4j.configuration=file:{work}/log4j.properties",
            "-cp", f"{libs}/*"]


def start_broker(libs, work):
    """FIELD-NOTES' recipe: one node, broker and controller, on free loopback ports."""
    port, controller = free_port(), free_port()
    with open(f"{work}/log4j.properties", "w") as f:
        f.write(LOG4J)
    props = f"{work}/server.properties"
    with open(props, "w") as f:
        f.write(f"""process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:{controller}
listeners=PLAINTEXT://127.0.0.1:{port},CONTROLLER://127.0.0.1:{controller}
advertised.listeners=PLAINTEXT://127.0.0.1:{port}
controller.listener.names=CONTROLLER
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT
inter.broker.listener.name=PLAINTEXT
log.dirs={work}/data
num.partitions=1
auto.create.topics.enable=false
offsets.topic.replication.factor=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
""")
    cluster = base64.urlsafe_b64encode(os.urandom(16)).decode().rstrip("=")
    subprocess.run(java(libs, work) + ["kafka.tools.StorageTool", "format", "-t", cluster, "-c", props],
                   check=True, stdout=subprocess.DEVNULL)
    log = open(f"{work}/broker.log", "w")
    broker = subprocess.Popen(java(libs, work, "1g") + ["kafka.Kafka", props],
                              stdout=subprocess.DEVNULL, stderr=log, stdin=subprocess.DEVNULL)
    if not wait_listening(port, broker, 30):
        broker.kill()
        die(f"the broker did not listen; see {work}/broker.log")
    return broker, f"127.0.0.1:{port}"


def create_topic(libs, work, addr, topic, partitions):
    subprocess.run(java(libs, work, "256m") + ["org.apache.kafka.tools.TopicCommand", "--bootstrap-server", addr,
                   "--create", "--topic", topic, "--partitions", str(partitions), "--replication-factor", "1"],
                   check=True, stdout=subprocess.DEVNULL)


def hakaru_rate(hakaru, addr, topic, n, size, acks):
    """records/s of `stream send` (its own clock: first record to the last acknowledged)."""
    argv = [hakaru, "stream", "send", "--to", f"kafka://{addr}/{topic}", "--record-size", str(size),
            "-n", str(n), "--acks", acks, "--linger", "5ms"]
    p = subprocess.run(argv, capture_output=True, text=True, timeout=600)
    if p.returncode != 0:
        die(f"stream send failed:\n{p.stdout}{p.stderr}")
    m = re.search(r"^Sent ([\d,]+) records .* in ([\d.]+) s", p.stdout, re.M)
    if not m:
        die(f"no 'Sent' line in:\n{p.stdout}")
    return int(m.group(1).replace(",", "")) / float(m.group(2))


def pp_rate(libs, work, addr, topic, n, size, acks, matched):
    """records/s ProducerPerformance reports (its last line)."""
    props = [f"bootstrap.servers={addr}", f"acks={acks}"]
    if matched:
        props += ["linger.ms=5", "batch.size=1000000"]
    argv = java(libs, work) + ["org.apache.kafka.tools.ProducerPerformance", "--topic", topic,
                               "--num-records", str(n), "--record-size", str(size - 1), "--throughput", "-1",
                               "--producer-props"] + props
    p = subprocess.run(argv, capture_output=True, text=True, timeout=600)
    lines = [ln for ln in p.stdout.splitlines() if "records sent" in ln]
    if p.returncode != 0 or not lines:
        die(f"ProducerPerformance failed:\n{p.stdout}{p.stderr}")
    return float(re.search(r"records sent, ([\d.]+) records/sec", lines[-1]).group(1))


def watch_rate(hakaru, addr, topic, total):
    """records/s `watch kafka://… --from-start` reads the whole topic at (one consumer)."""
    argv = [hakaru, "watch", f"kafka://{addr}/{topic}", "--from-start", "--expect", str(total),
            "--interval", "1s", "--warmup", "0", "--window", "600s", "--no-machine", "-q"]
    p = subprocess.run(argv, capture_output=True, text=True, timeout=700)
    row = [ln.split() for ln in p.stdout.splitlines() if ln.split()[:1] == ["1"]]
    if p.returncode != 0 or not row:
        die(f"watch failed:\n{p.stdout}{p.stderr}")
    return float(row[0][3].replace(",", ""))


def main():
    n = int(env_number("N", 500_000))
    size = int(env_number("SIZE", 1024))
    partitions = int(env_number("PARTITIONS", 1))
    runs = int(env_number("RUNS", 3))
    acks = os.environ.get("ACKS", "1")
    if acks not in ("0", "1", "all"):
        die(f"ACKS={acks!r}: 0, 1 or all")
    libs = os.environ.get("KAFKA_LIBS") or os.environ.get("HAKARU_KAFKA_LIBS") \
        or os.path.expanduser("~/.cache/hakaru-kafka/libs")
    if not os.path.isdir(libs):
        die(f"no Kafka jars in {libs}: run .ci/run (it caches them there) or set KAFKA_LIBS")
    hakaru = hakaru_binary()
    work = Workdir("hakaru-bench-kafka-").path
    broker, addr = start_broker(libs, work)
    try:
        create_topic(libs, work, addr, "bench", partitions)
        print(f"# bench/kafka.sh: {machine_line()}; Kafka 3.9.1 broker -Xmx1g at {addr}, "
              f"{partitions} partition(s); {n:,} x {size} B records, acks={acks}; median of {runs}")
        rows = {"hakaru stream send (librdkafka)": [], "ProducerPerformance, Java defaults": [],
                "ProducerPerformance, linger 5 ms, batch 1 MB": []}
        for _ in range(runs):
            # Alternated, so a slow moment of the shared machine hits each alike.
            rows["hakaru stream send (librdkafka)"].append(hakaru_rate(hakaru, addr, "bench", n, size, acks))
            rows["ProducerPerformance, Java defaults"].append(
                pp_rate(libs, work, addr, "bench", n, size, acks, False))
            rows["ProducerPerformance, linger 5 ms, batch 1 MB"].append(
                pp_rate(libs, work, addr, "bench", n, size, acks, True))
        ours = median(rows["hakaru stream send (librdkafka)"])
        print(f"{'producer':<46} {'records/s':>12} {'MiB/s':>8} {'hakaru ÷ it':>12}   runs")
        for name, rates in rows.items():
            r = median(rates)
            print(f"{name:<46} {fmt(r, ',.0f'):>12} {fmt(r * size / 2**20, ',.1f'):>8} "
                  f"{fmt(ours / r, '.2f'):>12}   {', '.join(f'{x:,.0f}' for x in rates)}")
        # Everything sent above, read back by one consumer from the topic's start.
        total = n * runs * 3
        r = watch_rate(hakaru, addr, "bench", total)
        print(f"{'hakaru watch (one consumer, from the start)':<46} {fmt(r, ',.0f'):>12} "
              f"{fmt(r * size / 2**20, ',.1f'):>8} {'':>12}   {total:,} records read back")
        print("Each ProducerPerformance run is a fresh JVM (JIT warm-up included, as it is run); "
              "both tools' rates include waiting for the last acknowledgement.")
    finally:
        broker.send_signal(signal.SIGTERM)
        try:
            broker.wait(timeout=30)
        except subprocess.TimeoutExpired:
            broker.kill()
            broker.wait()


if __name__ == "__main__":
    main()
