#!/usr/bin/env bash
# The whole suite, as `make test` runs it: install and start every real
# server the tests meet (each once for the run, on loopback), run go test
# against them, and stop every server that was started, whatever the
# outcome (a trap, so a failed start or an interrupt stops the others too).
#
# Servers and tools, each from its package registry:
#   scripts/kafka.sh     Apache Kafka (KRaft) from Maven Central
#   scripts/kafka-cluster.sh  the same jars as a controller and three brokers
#   scripts/chromium.sh  Debian's Chromium, for the browser tests
#   scripts/kcat.sh      Debian's kcat, a real librdkafka producer
#   scripts/s3.sh        Versity S3 Gateway (versitygw) from the Go proxy
#   scripts/registry.sh  Apicurio Registry (its Confluent API) from Maven Central
#   scripts/spark.sh     Spark Connect (pyspark 4.3.0 from PyPI, on Java 17)
#
# Each start prints KEY=VALUE lines; they are read into the environment and
# handed to go test as the TOPICSNAP_TEST_* variables the tests look for.
# A test that needs a server skips only when its variable is absent, which
# this script never lets happen.
set -uo pipefail
# The server's format=arrow is duckdb-go's Arrow interface: its build tag.
GOFLAGS="$(${GO:-go} env GOFLAGS)"
[[ " ${GOFLAGS:-} " == *duckdb_arrow* ]] || export GOFLAGS="$("${GO:-go}" env GOFLAGS) -tags=duckdb_arrow"
cd "$(dirname "$0")/.."
GO="${GO:-go}"
ENV_FILE="$(mktemp /tmp/topicsnap-test-env.XXXXXX)"
STARTED=()
STARTED_FILES=()

stop_all() {
	local i
	for ((i = ${#STARTED[@]} - 1; i >= 0; i--)); do
		"scripts/${STARTED[i]}.sh" stop || true
	done
	rm -f "$ENV_FILE" "${STARTED_FILES[@]}"
}
trap stop_all EXIT
trap 'exit 130' INT TERM

# start NAME: scripts/NAME.sh start, its lines into the environment file.
start() {
	STARTED+=("$1")
	"scripts/$1.sh" start >>"$ENV_FILE" || { echo "test: scripts/$1.sh start failed" >&2; exit 1; }
}

start kafka
start kafka-cluster
start s3
start registry
start spark
c="$(scripts/chromium.sh)" || exit 1
k="$(scripts/kcat.sh)" || exit 1
set -a
# shellcheck disable=SC1090
source "$ENV_FILE"
set +a
# The bucket tests read TOPICSNAP_TEST_S3_*.
while IFS='=' read -r key value; do
	[[ "$key" == S3_* ]] && export "TOPICSNAP_TEST_$key=$value"
done <"$ENV_FILE"

# go test -json through scripts/testreport: a line per package, the output
# of every failure, a line per skipped test with its reason; a skip that
# scripts/expected-skips.txt does not name fails the run.
REPORT="$(mktemp /tmp/topicsnap-testreport.XXXXXX)"
"$GO" build -o "$REPORT" ./scripts/testreport || exit 1
NOSKIPS="$(mktemp /tmp/topicsnap-noskips.XXXXXX)"
STARTED_FILES=("$REPORT" "$NOSKIPS")

status=0
TOPICSNAP_TEST_BROKERS=$KAFKA_BROKERS TOPICSNAP_TEST_SASL_BROKERS=$KAFKA_SASL_BROKERS \
TOPICSNAP_TEST_SASL_USER=$KAFKA_SASL_USER TOPICSNAP_TEST_SASL_PASSWORD=$KAFKA_SASL_PASSWORD \
TOPICSNAP_TEST_SSL_BROKERS=$KAFKA_SSL_BROKERS TOPICSNAP_TEST_SSL_CA=$KAFKA_SSL_CA \
TOPICSNAP_TEST_NOACL_USER=$KAFKA_NOACL_USER TOPICSNAP_TEST_NOACL_PASSWORD=$KAFKA_NOACL_PASSWORD \
TOPICSNAP_TEST_KAFKA_SCRIPT="$PWD/scripts/kafka.sh" TOPICSNAP_TEST_KAFKA_BIN=$KAFKA_BIN TOPICSNAP_CHROMIUM="$c" TOPICSNAP_KCAT="$k" \
TOPICSNAP_TEST_KAFKA_DATA_DIR="$KAFKA_STATE_DIR/data" \
TOPICSNAP_TEST_CLUSTER_BROKERS=$KAFKA_CLUSTER_BROKERS TOPICSNAP_TEST_CLUSTER_SCRIPT=$KAFKA_CLUSTER_SCRIPT \
TOPICSNAP_TEST_REGISTRY=$SCHEMA_REGISTRY_URL TOPICSNAP_TEST_REGISTRY_TLS=$SCHEMA_REGISTRY_TLS_URL \
TOPICSNAP_TEST_REGISTRY_TLS_CA=$SCHEMA_REGISTRY_TLS_CA TOPICSNAP_TEST_SPARK_REMOTE=$TOPICSNAP_SPARK_REMOTE \
	"$GO" test -json -count=1 -timeout 30m ./... | "$REPORT" -expect scripts/expected-skips.txt || status=1
# Stop or restart the broker, so they run alone, after the rest, one
# package at a time (-p 1: never two of them on the broker at once).
TOPICSNAP_TEST_BROKERS=$KAFKA_BROKERS TOPICSNAP_TEST_KAFKA_SCRIPT="$PWD/scripts/kafka.sh" TOPICSNAP_TEST_RESTART=1 \
TOPICSNAP_TEST_KAFKA_DATA_DIR="$KAFKA_STATE_DIR/data" \
	"$GO" test -json -count=1 -p 1 -timeout 15m -run 'TestBrokerRestartMidDump|TestImportStoppedBroker' ./dump ./segments | "$REPORT" -expect "$NOSKIPS" || status=1
exit "$status"
