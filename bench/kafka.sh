#!/bin/sh
# hakaru's Kafka sink beside Kafka's own ProducerPerformance on the same private
# single-node broker (KRaft, the jars .ci/run caches in ~/.cache/hakaru-kafka/libs):
# same record size, count and acks; see bench/kafka.py for the knobs (N, SIZE, ACKS,
# PARTITIONS, RUNS, KAFKA_LIBS). Needs: Java 17, the jars (.ci/run fetches them).
exec python3 "$(dirname "$0")/kafka.py" "$@"
