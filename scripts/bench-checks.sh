#!/usr/bin/env bash
# Time every check on the snapshot scripts/bench-dump.sh made, and the gap and
# duplicate checks side by side with the best hand-written DuckDB queries for
# the same answer, run by the DuckDB CLI (from PyPI, as scripts/bench-sql.sh
# installs it) on the same Parquet files.
#
# Usage: scripts/bench-checks.sh          (after scripts/bench-dump.sh)
# Environment: BENCH_DIR (default /tmp/topicsnap-bench), RUNS (default 3).
# The table is printed and kept in $BENCH_DIR/bench-checks.md.
set -euo pipefail
# The server's format=arrow is duckdb-go's Arrow interface: its build tag.
GOFLAGS="$(${GO:-go} env GOFLAGS)"
[[ " ${GOFLAGS:-} " == *duckdb_arrow* ]] || export GOFLAGS="$("${GO:-go}" env GOFLAGS) -tags=duckdb_arrow"
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
BENCH_DIR="${BENCH_DIR:-/tmp/topicsnap-bench}"
SNAP="$BENCH_DIR/snap"
RUNS="${RUNS:-3}"
TOPIC=bench
[ -x bin/topicsnap ] || go build -o bin/topicsnap ./cmd/topicsnap
[ -d "$SNAP/topic=$TOPIC" ] || { echo "bench-checks: no snapshot in $SNAP; run scripts/bench-dump.sh first" >&2; exit 2; }
log() { echo "bench-checks: $*" >&2; }
die() { log "error: $*"; exit 2; }
# shellcheck source=bench-lib.sh
source "$ROOT/scripts/bench-lib.sh"
VENV="${TOPICSNAP_VENV:-$HOME/.cache/topicsnap/venv}"
ensure_duckdb_cli "$(bin/topicsnap sql --dir "$SNAP" --format csv -c "SELECT version()" | tail -n 1 | tr -d '\r"v')"
FILES="read_parquet('$SNAP/topic=$TOPIC/partition=*/*.parquet')"
N="$(bin/topicsnap sql --dir "$SNAP" -c "SELECT count(*) FROM $TOPIC" --format csv | tail -1)"

# median_time CMD...: the median wall time of RUNS runs, in seconds.
median_time() {
  local ts=() i s e
  for ((i = 0; i < RUNS; i++)); do
    s=$(date +%s.%N); rc=0; "$@" > /dev/null 2>"$BENCH_DIR/bench-checks.err" || rc=$?; e=$(date +%s.%N)
    # 0 ok/warn, 1 a failed check: both are answers. Anything else is not.
    if [ "$rc" -gt 1 ]; then echo "bench-checks: exit $rc from $*:" >&2; cat "$BENCH_DIR/bench-checks.err" >&2; exit 1; fi
    ts+=("$(awk -v a="$s" -v b="$e" 'BEGIN{printf "%.3f", b-a}')")
  done
  printf '%s\n' "${ts[@]}" | sort -n | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}'
}

{
echo "## checks on $N records ($(nproc) cores, $(date -u +%Y-%m-%d))"
echo
echo "| check | topicsnap check s | hand-written DuckDB CLI s | ratio |"
echo "| --- | --- | --- | --- |"
GAPS_SQL="SELECT \"partition\", \"offset\" + 1 AS hole_from, next - 1 AS hole_to FROM (SELECT \"partition\", \"offset\", lead(\"offset\") OVER (PARTITION BY \"partition\" ORDER BY \"offset\") AS next FROM $FILES) WHERE next <> \"offset\" + 1"
DUP_SQL="SELECT count(*) AS records, count(DISTINCT id) AS ids FROM (SELECT json_extract_string(decode(value), '\$.event_id') AS id FROM $FILES WHERE NOT is_control)"
for check in gaps duplicates skew keys order freshness lag; do
  args=()
  [ "$check" = duplicates ] && args=(--id value.event_id)
  t=$(median_time bin/topicsnap check "$check" --dir "$SNAP" --topic $TOPIC --format json "${args[@]}")
  case $check in
    gaps) h=$(median_time "$DUCKDB" -csv -c "$GAPS_SQL") ;;
    duplicates) h=$(median_time "$DUCKDB" -csv -c "$DUP_SQL") ;;
    *) h="" ;;
  esac
  if [ -n "$h" ]; then
    echo "| $check | $t | $h | $(awk -v a="$t" -v b="$h" 'BEGIN{printf "%.2f", a/b}') |"
  else
    echo "| $check | $t | | |"
  fi
done
} | tee "$BENCH_DIR/bench-checks.md"
