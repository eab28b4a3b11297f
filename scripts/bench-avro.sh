#!/usr/bin/env bash
# Benchmark schema-encoded topics: the same N events (~200 B as JSON) as
# plain JSON and as Avro through a Schema Registry, in one run.
#
# Usage: scripts/bench-avro.sh [N]        (N records, default 5000000)
#
# It starts (unless running) a Kafka broker (scripts/kafka.sh) and a Schema
# Registry (scripts/registry.sh, Apicurio), produces N events to topic
# benchjson_S (JSON) and N to benchavro_S (Avro, wire format, written through
# franz-go's sr.Serde by scripts/benchtools/produce --format avro), then:
#   dump   topicsnap dump of each topic into a fresh folder, RUNS times,
#          alternating JSON and Avro; records/s of the median run. The Avro
#          dump decodes every value with its writer schema (dump-time
#          decoding, beside the exact bytes).
#   query  count(DISTINCT value.event_id) on the Avro topic (topicsnap sql),
#          on the JSON topic (topicsnap sql), and count(DISTINCT event_id) on
#          a plain Parquet file of the same values (one VARCHAR column,
#          written by topicsnap sql --format parquet) read by the DuckDB CLI
#          (duckdb-cli from PyPI, topicsnap's DuckDB version); RUNS runs each,
#          medians, the answers compared.
# and prints two markdown tables. The targets (issue 14): the Avro dump at
# least 0.70x the JSON dump's records/s; the Avro query within 1.2x of the
# DuckDB CLI on the plain Parquet column.
#
# Environment (all optional):
#   BENCH_DIR          work dir (default /tmp/topicsnap-bench-avro)
#   RUNS               runs per measurement (default 3)
#   BENCH_KEEP=1       leave the broker and the registry running
#   BENCH_NO_BUILD=1   use the existing bin/topicsnap
#   BENCH_STAMP=S      dump benchjson_S and benchavro_S, produced before (by
#                      this script with BENCH_KEEP=1, or by produce), instead
#                      of producing new topics
#   BENCH_QUIET_WAIT   seconds to wait for an idle machine before each run (600)
#   TOPICSNAP_KAFKA_*  see scripts/kafka.sh; defaults here: dir
#                      /tmp/topicsnap-kafka-bench, ports 39192-39195, heap 1g
#   TOPICSNAP_REGISTRY_*  see scripts/registry.sh; defaults here: dir
#                      /tmp/topicsnap-registry-bench, ports 38281/38282, HTTPS 38283
set -euo pipefail
# The server's format=arrow is duckdb-go's Arrow interface: its build tag.
GOFLAGS="$(${GO:-go} env GOFLAGS)"
[[ " ${GOFLAGS:-} " == *duckdb_arrow* ]] || export GOFLAGS="$("${GO:-go}" env GOFLAGS) -tags=duckdb_arrow"

N="${1:-5000000}"
[[ "$N" =~ ^[0-9]+$ && "$N" -gt 0 ]] || { echo "usage: $0 [N]" >&2; exit 2; }
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
BENCH_DIR="${BENCH_DIR:-/tmp/topicsnap-bench-avro}"
RUNS="${RUNS:-3}"
export TOPICSNAP_KAFKA_DIR="${TOPICSNAP_KAFKA_DIR:-/tmp/topicsnap-kafka-bench}"
export TOPICSNAP_KAFKA_PORT="${TOPICSNAP_KAFKA_PORT:-39192}"
export TOPICSNAP_KAFKA_SASL_PORT="${TOPICSNAP_KAFKA_SASL_PORT:-39193}"
export TOPICSNAP_KAFKA_CONTROLLER_PORT="${TOPICSNAP_KAFKA_CONTROLLER_PORT:-39194}"
export TOPICSNAP_KAFKA_SSL_PORT="${TOPICSNAP_KAFKA_SSL_PORT:-39195}"
export TOPICSNAP_KAFKA_HEAP="${TOPICSNAP_KAFKA_HEAP:--Xms1g -Xmx1g}"
export TOPICSNAP_REGISTRY_DIR="${TOPICSNAP_REGISTRY_DIR:-/tmp/topicsnap-registry-bench}"
export TOPICSNAP_REGISTRY_PORT="${TOPICSNAP_REGISTRY_PORT:-38281}"
export TOPICSNAP_REGISTRY_MGMT_PORT="${TOPICSNAP_REGISTRY_MGMT_PORT:-38282}"
export TOPICSNAP_REGISTRY_SSL_PORT="${TOPICSNAP_REGISTRY_SSL_PORT:-38283}"
BROKERS="127.0.0.1:$TOPICSNAP_KAFKA_PORT"
REGISTRY="http://127.0.0.1:$TOPICSNAP_REGISTRY_PORT/apis/ccompat/v7"

log() { echo "bench-avro: $*" >&2; }
die() { log "error: $*"; exit 1; }
# shellcheck source=bench-lib.sh
source "$ROOT/scripts/bench-lib.sh"

mkdir -p "$BENCH_DIR/out"
OUT="$BENCH_DIR/out"
STARTED_KAFKA=0 STARTED_REGISTRY=0
cleanup() {
  [[ "${BENCH_KEEP:-0}" == 1 ]] && return 0
  [[ $STARTED_REGISTRY == 1 ]] && scripts/registry.sh stop || true
  [[ $STARTED_KAFKA == 1 ]] && scripts/kafka.sh stop || true
}
trap cleanup EXIT
if ! scripts/kafka.sh status >/dev/null 2>&1; then
  scripts/kafka.sh start >/dev/null || die "could not start the broker"
  STARTED_KAFKA=1
fi
if ! scripts/registry.sh status >/dev/null 2>&1; then
  scripts/registry.sh start >/dev/null || die "could not start the registry"
  STARTED_REGISTRY=1
fi

if [[ "${BENCH_NO_BUILD:-0}" != 1 || ! -x bin/topicsnap ]]; then
  log "building bin/topicsnap"
  go build -o bin/topicsnap ./cmd/topicsnap || die "go build ./cmd/topicsnap failed"
fi
go build -o "$BENCH_DIR/produce" ./scripts/benchtools/produce || die "go build produce failed"

STAMP="${BENCH_STAMP:-$(date +%s)}"
JT="benchjson_$STAMP" AT="benchavro_$STAMP"
if [[ -n "${BENCH_STAMP:-}" ]]; then
  log "dumping $JT and $AT, produced before"
else
  log "producing $N JSON events to $JT and the same as Avro to $AT"
  "$BENCH_DIR/produce" --brokers "$BROKERS" --topic "$JT" --create -n "$N" >"$OUT/produce-json.txt"
  "$BENCH_DIR/produce" --brokers "$BROKERS" --topic "$AT" --create -n "$N" --format avro --registry "$REGISTRY" >"$OUT/produce-avro.txt"
fi

median() { sort -g "$1" | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}'; }

# ---------------------------------------------------------------- dump
rm -f "$OUT"/dump-*.times
for ((r = 1; r <= RUNS; r++)); do
  for f in json avro; do
    t="$JT"; [[ $f == avro ]] && t="$AT"
    rm -rf "$BENCH_DIR/snap-$f"
    wait_quiet
    t0="$EPOCHREALTIME"
    bin/topicsnap dump --brokers "$BROKERS" --topic "$t" --dir "$BENCH_DIR/snap-$f" --schema-registry "$REGISTRY" \
      >"$OUT/dump-$f.out" 2>"$OUT/dump-$f.err" || { cat "$OUT/dump-$f.err" >&2; die "dump of $t failed"; }
    t1="$EPOCHREALTIME"
    awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.3f\n", b-a}' >>"$OUT/dump-$f.times"
    log "dump $f run $r: $(cat "$OUT/dump-$f.out")"
  done
done
grep -q "dumped $N records" "$OUT/dump-json.out" || die "the JSON dump did not read $N records"
grep -q "dumped $N records.*, $N values decoded with their schema, 0 not decoded" "$OUT/dump-avro.out" || die "the Avro dump did not decode all $N values: $(cat "$OUT/dump-avro.out")"
DJ="$(median "$OUT/dump-json.times")" DA="$(median "$OUT/dump-avro.times")"
BJ="$(du -sb "$BENCH_DIR/snap-json" | cut -f1)" BA="$(du -sb "$BENCH_DIR/snap-avro" | cut -f1)"

# ---------------------------------------------------------------- query
EMBEDDED="$(bin/topicsnap sql --dir "$BENCH_DIR/snap-json" --format csv -c "SELECT version()" | tail -n 1 | tr -d '\r"v')"
[[ -n "${DUCKDB:-}" ]] || ensure_duckdb_cli "$EMBEDDED"
PLAIN="$BENCH_DIR/plain.parquet"
bin/topicsnap sql --dir "$BENCH_DIR/snap-json" --format parquet -c "SELECT value.event_id AS event_id FROM $JT" >"$PLAIN"

time_q() { # NAME CMD...: appends the wall time, keeps the last answer
  local name="$1" t0 t1
  shift
  t0="$EPOCHREALTIME"
  "$@" >"$OUT/q-$name.out" 2>"$OUT/q-$name.err" || { cat "$OUT/q-$name.err" >&2; die "query $name failed"; }
  t1="$EPOCHREALTIME"
  awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.4f\n", b-a}' >>"$OUT/q-$name.times"
}
rm -f "$OUT"/q-*.times
for ((r = 1; r <= RUNS; r++)); do
  wait_quiet
  time_q avro bin/topicsnap sql --dir "$BENCH_DIR/snap-avro" --format csv -c "SELECT count(DISTINCT value.event_id) AS n FROM $AT"
  time_q json bin/topicsnap sql --dir "$BENCH_DIR/snap-json" --format csv -c "SELECT count(DISTINCT value.event_id) AS n FROM $JT"
  time_q duckdb "$DUCKDB" -csv -c "SELECT count(DISTINCT event_id) AS n FROM read_parquet('$PLAIN')"
done
ans() { tail -n 1 "$OUT/q-$1.out" | tr -d '\r"'; }
[[ "$(ans avro)" == "$N" && "$(ans json)" == "$N" && "$(ans duckdb)" == "$N" ]] || die "answers differ: avro $(ans avro) json $(ans json) duckdb $(ans duckdb), want $N"
QA="$(median "$OUT/q-avro.times")" QJ="$(median "$OUT/q-json.times")" QD="$(median "$OUT/q-duckdb.times")"

rate() { awk -v n="$N" -v s="$1" 'BEGIN{printf "%\047.0f", n/s}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN{printf "%.2fx", a/b}'; }
echo
echo "Schema-encoded topics: $N events, median of $RUNS runs, $(nproc) cores, Kafka $(scripts/kafka.sh env | sed -n 's/^KAFKA_VERSION=//p'), Apicurio $(scripts/registry.sh env | sed -n 's/^SCHEMA_REGISTRY_VERSION=//p'), DuckDB $EMBEDDED"
echo
echo "| dump | wall s | records/s | vs JSON | on disk MiB |"
echo "|---|---|---|---|---|"
echo "| JSON topic | $DJ | $(rate "$DJ") | 1.00x | $((BJ / 1048576)) |"
echo "| Avro topic (decoded at dump time) | $DA | $(rate "$DA") | $(ratio "$DJ" "$DA") | $((BA / 1048576)) |"
echo
echo "| count(DISTINCT event_id) | wall s | vs DuckDB CLI on plain Parquet |"
echo "|---|---|---|"
echo "| topicsnap sql, Avro topic (value.event_id) | $QA | $(ratio "$QA" "$QD") |"
echo "| topicsnap sql, JSON topic (value.event_id) | $QJ | $(ratio "$QJ" "$QD") |"
echo "| DuckDB CLI, plain Parquet column | $QD | 1.00x |"
echo
echo "targets: Avro dump >= 0.70x JSON records/s: $(awk -v j="$DJ" -v a="$DA" 'BEGIN{print (j/a >= 0.70) ? "met" : "missed"}'); Avro query <= 1.2x DuckDB CLI: $(awk -v a="$QA" -v d="$QD" 'BEGIN{print (a/d <= 1.2) ? "met" : "missed"}')"
