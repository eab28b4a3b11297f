#!/usr/bin/env bash
# Every check on the same snapshot on both engines, side by side in one run:
# the embedded DuckDB and a Spark Connect server (local[2], started here
# with scripts/spark.sh and stopped after). The snapshot is written by code
# (scripts/benchtools/mksnap: topic "bench", 6 partitions, ~200 B JSON
# events keyed by user, files of 200,000 records). Spark's first query in a
# session pays its start (the views, the functions, the JVM's warm-up): the
# table shows it apart ("Spark first"), then the median of RUNS. Each run is
# a new topicsnap process, so a new Spark session: its views are made anew.
# missing runs --against a CSV of 101,000 expected user ids (0..100999)
# matched on value.user_id: the events' users are 0..99999, so 1,000 are
# missing.
#
# Usage: scripts/bench-spark.sh [N]        (N records, default 5000000)
# Environment: BENCH_DIR (default /tmp/topicsnap-bench-spark), RUNS (3; 0: each engine
#   once, Spark's one run in "Spark first", for sizes where a run takes many minutes), CHECKS (all),
#   TOPICSNAP_SPARK_PORT (38200), TOPICSNAP_SPARK_DIR (/tmp/topicsnap-spark-bench),
#   TOPICSNAP_SPARK_REMOTE (use this server instead of starting one).
# The table is printed and kept in $BENCH_DIR/bench-spark-N.md.
set -euo pipefail
# The server's format=arrow is duckdb-go's Arrow interface: its build tag.
GOFLAGS="$(${GO:-go} env GOFLAGS)"
[[ " ${GOFLAGS:-} " == *duckdb_arrow* ]] || export GOFLAGS="$("${GO:-go}" env GOFLAGS) -tags=duckdb_arrow"
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
N="${1:-5000000}"
BENCH_DIR="${BENCH_DIR:-/tmp/topicsnap-bench-spark}"
SNAP="$BENCH_DIR/snap-$N"
RUNS="${RUNS:-3}"
TOPIC=bench
log() { echo "bench-spark: $*" >&2; }
go build -o bin/topicsnap ./cmd/topicsnap
mkdir -p "$BENCH_DIR"
[ -f "$SNAP/topicsnap.json" ] || { log "writing $N records to $SNAP"; go run ./scripts/benchtools/mksnap "$SNAP" "$N"; }
if [ -z "${TOPICSNAP_SPARK_REMOTE:-}" ]; then
  export TOPICSNAP_SPARK_PORT="${TOPICSNAP_SPARK_PORT:-38200}" TOPICSNAP_SPARK_DIR="${TOPICSNAP_SPARK_DIR:-/tmp/topicsnap-spark-bench}"
  trap 'scripts/spark.sh stop' EXIT
  TOPICSNAP_SPARK_REMOTE="$(scripts/spark.sh start | sed -n 's/^TOPICSNAP_SPARK_REMOTE=//p')"
  export TOPICSNAP_SPARK_REMOTE
fi

# run_time CMD...: wall seconds of one run; 0 ok/warn and 1 fail are answers.
# A run that errs (exit > 1: out of memory, a lost server) is "failed (exit N)"
# in the table, its stderr kept in $BENCH_DIR, and the other checks go on.
run_time() {
  local s e rc=0
  s=$(date +%s.%N); "$@" > "$BENCH_DIR/out.json" 2>"$BENCH_DIR/err" || rc=$?; e=$(date +%s.%N)
  if [ "$rc" -gt 1 ]; then
    log "exit $rc from $*:"; cat "$BENCH_DIR/err" >&2
    cp "$BENCH_DIR/err" "$BENCH_DIR/failed-$(date +%s).err"
    echo "failed (exit $rc)"; return
  fi
  awk -v a="$s" -v b="$e" 'BEGIN{printf "%.2f", b-a}'
}
median_time() {
  local ts=() i
  for ((i = 0; i < RUNS; i++)); do ts+=("$(run_time "$@")"); done
  [ "${#ts[@]}" -gt 0 ] || { echo "—"; return; }
  printf '%s\n' "${ts[@]}" | sort -n | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}'
}

EXPECTED="$BENCH_DIR/expected-users.csv"
[ -f "$EXPECTED" ] || { echo user_id; seq 0 100999; } > "$EXPECTED"
{
echo "## every check on $N records, DuckDB and Spark Connect ($(nproc) cores, Spark local[2], $(date -u +%Y-%m-%d))"
echo
echo "| check | DuckDB s | Spark first s | Spark s (median of $RUNS) | Spark / DuckDB |"
echo "| --- | --- | --- | --- | --- |"
for check in ${CHECKS:-gaps duplicates skew keys order freshness values lag missing}; do
  args=(check "$check" --dir "$SNAP" --topic $TOPIC --format json)
  [ "$check" = duplicates ] && args+=(--id value.event_id)
  [ "$check" = missing ] && args+=(--match value.user_id --against "$EXPECTED" --against-key user_id)
  if [ "$RUNS" -gt 0 ]; then d=$(median_time bin/topicsnap "${args[@]}"); else d=$(run_time bin/topicsnap "${args[@]}"); fi
  f=$(run_time bin/topicsnap "${args[@]}" --engine spark)
  s=$(median_time bin/topicsnap "${args[@]}" --engine spark)
  ratio() { [[ "$1" =~ ^[0-9.]+$ && "$2" =~ ^[0-9.]+$ ]] && awk -v a="$1" -v b="$2" 'BEGIN{printf "%.1f", a/b}' || echo "—"; }
  if [ "$RUNS" -gt 0 ]; then r=$(ratio "$s" "$d"); else r=$(ratio "$f" "$d"); fi
  echo "| $check | $d | $f | $s | $r |"
  echo "bench-spark: $check done $(date -u +%H:%M:%SZ), load $(cut -d' ' -f1-3 /proc/loadavg)" >&2
done
} | tee "$BENCH_DIR/bench-spark-$N.md"
