# topicsnap's build, tests and benchmarks. `make test` sets up everything it
# needs on a fresh machine from the package registries (Kafka and Apicurio
# from Maven Central, versitygw from the Go proxy, pyspark from PyPI,
# Chromium and kcat from Debian) and starts and stops each server on
# loopback itself (scripts/test.sh).
SHELL := /bin/bash
GO ?= go
BIN := bin/topicsnap
# Every go command here builds with duckdb-go's Arrow interface (the
# server's format=arrow, queries.QueryArrow), which needs this build tag;
# the scripts set it too when run by hand. A build without it answers
# format=arrow with 501.
export GOFLAGS := $(strip $(shell $(GO) env GOFLAGS) -tags=duckdb_arrow)
export TOPICSNAP_KAFKA_DIR ?= /tmp/topicsnap-kafka-test
# The three-broker cluster of the durability tests: scripts/kafka-cluster.sh.
export TOPICSNAP_KAFKA_CLUSTER_DIR ?= /tmp/topicsnap-kafka-cluster-test
# The S3 server (versitygw) of the bucket tests: scripts/s3.sh.
export TOPICSNAP_S3_DIR ?= /tmp/topicsnap-s3-test
# The Schema Registry (Apicurio) and Spark Connect of the tests.
export TOPICSNAP_REGISTRY_DIR ?= /tmp/topicsnap-registry-test
export TOPICSNAP_SPARK_DIR ?= /tmp/topicsnap-spark-test

.PHONY: faults soak build demo test unit integration nocgo vet bench bench-dump bench-sql bench-startup bench-checks bench-serve bench-restore bench-curve bench-avro clean kafka-start kafka-stop

build:
	$(GO) build -o $(BIN) ./cmd/topicsnap

# The demo's folder is its own: each `make demo` starts from a fresh one.
# Where it serves: make demo ADDR=127.0.0.1:8081.
ADDR ?= 127.0.0.1:8080
demo: build
	rm -rf demo-snapshots
	./$(BIN) demo --dir demo-snapshots --addr $(ADDR)

# The whole suite: vet, the cgo-free build of dump and catalog, then every
# test against the real servers scripts/test.sh installs, starts once on
# loopback and stops after, whatever the outcome.
test: vet nocgo
	GO=$(GO) scripts/test.sh

# A soak: dump --follow for SOAK (5m) while producing, with three broker
# restarts, then exact coverage. Restarts the broker, so it runs alone.
SOAK ?= 5m
soak:
	@scripts/kafka.sh start > /tmp/topicsnap-kafka-env
	@set -a; source /tmp/topicsnap-kafka-env; set +a; status=0; \
	TOPICSNAP_TEST_BROKERS=$$KAFKA_BROKERS TOPICSNAP_TEST_KAFKA_SCRIPT=$(CURDIR)/scripts/kafka.sh TOPICSNAP_TEST_SOAK=$(SOAK) \
	$(GO) test -count=1 -timeout 30m -run 'TestSoakFollowAcrossBrokerRestarts' -v ./dump || status=1; \
	scripts/kafka.sh stop; exit $$status

# The fault tests at full size (make test runs them smaller): kill -9 twenty
# times while dumping a 2M-record topic that is being written to, kill -9
# ten times while restoring 500k records, and the broker killed mid-read
# and kept down 30 s. Restarts the broker, so alone.
KILL_RECORDS ?= 2000000
RESTORE_KILL_RECORDS ?= 500000
OUTAGE ?= 30s
faults:
	@scripts/kafka.sh start > /tmp/topicsnap-kafka-env
	@set -a; source /tmp/topicsnap-kafka-env; set +a; status=0; \
	TOPICSNAP_TEST_BROKERS=$$KAFKA_BROKERS TOPICSNAP_TEST_KILL_RECORDS=$(KILL_RECORDS) \
	$(GO) test -count=1 -timeout 30m -run 'TestKillNineResumesExactly' -v ./dump || status=1; \
	TOPICSNAP_TEST_BROKERS=$$KAFKA_BROKERS TOPICSNAP_TEST_RESTORE_KILL_RECORDS=$(RESTORE_KILL_RECORDS) \
	$(GO) test -count=1 -timeout 30m -run 'TestRestoreKillNineExactlyOnce' -v ./restore || status=1; \
	TOPICSNAP_TEST_BROKERS=$$KAFKA_BROKERS TOPICSNAP_TEST_KAFKA_SCRIPT=$(CURDIR)/scripts/kafka.sh TOPICSNAP_TEST_RESTART=1 TOPICSNAP_TEST_OUTAGE=$(OUTAGE) \
	$(GO) test -count=1 -timeout 10m -run 'TestBrokerRestartMidDump' -v ./dump || status=1; \
	scripts/kafka.sh stop; exit $$status

# Fast tests on the in-process kfake cluster only.
unit:
	$(GO) test -short ./...

# dump, catalog and schemas never need cgo (no DuckDB): prove it.
nocgo:
	CGO_ENABLED=0 $(GO) build ./dump ./restore ./kafkaconn ./catalog/... ./schemas
	CGO_ENABLED=0 $(GO) vet ./dump ./restore ./kafkaconn ./catalog/... ./schemas

vet:
	$(GO) mod tidy -diff
	$(GO) vet ./...

# Benchmarks (not timed tests): each runs a peer side by side in the same run
# and prints a markdown table; BENCHMARKS.md carries the latest figures.
BENCH_N ?= 5000000
bench-dump:
	scripts/bench-dump.sh $(BENCH_N)
bench-sql:
	scripts/bench-sql.sh $(BENCH_N)
# sql -c 'SELECT 1' vs the DuckDB CLI's start-up, alternated (RUNS=31 rounds).
bench-startup:
	scripts/bench-startup.sh
bench-checks:
	scripts/bench-checks.sh
# topicsnap restore (exactly once) vs kcat -P on the same records, 1M by default.
RESTORE_BENCH_N ?= 1000000
bench-restore:
	scripts/bench-restore.sh $(RESTORE_BENCH_N)
bench-serve:
	scripts/bench-serve.sh
# Avro through a Schema Registry vs the same events as JSON (dump, and a query vs the DuckDB CLI).
bench-avro:
	scripts/bench-avro.sh $(BENCH_N)
# Everything in one go, on the real broker, then one table of it all.
bench: bench-dump bench-sql bench-checks bench-serve
	scripts/bench-summary.sh
# How cost grows with the work: dump and checks at 1M, 5M and 25M records.
bench-curve:
	for n in 1000000 5000000 25000000; do \
	  BENCH_DIR=/tmp/topicsnap-bench-$$n BENCH_TOOLS=topicsnap scripts/bench-dump.sh $$n && \
	  BENCH_DIR=/tmp/topicsnap-bench-$$n RUNS=1 scripts/bench-checks.sh || exit 1; done

kafka-start:
	scripts/kafka.sh start
kafka-stop:
	scripts/kafka.sh stop

clean:
	rm -rf bin
