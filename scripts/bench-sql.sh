#!/usr/bin/env bash
# Benchmark `topicsnap sql` against the DuckDB CLI on the same Parquet files.
#
# Usage: scripts/bench-sql.sh [N]        (default 5000000)
#
# It reuses the snapshot scripts/bench-dump.sh left in $BENCH_DIR/snap if it
# holds N records, and otherwise runs `scripts/bench-dump.sh N` to make one.
# It installs the DuckDB CLI from PyPI (package duckdb-cli, pinned to the
# DuckDB version embedded in topicsnap) into a venv under
# ~/.cache/topicsnap/venv if missing, then times each query RUNS times (default
# 3; SHORT_RUNS, default 11, for the three short queries whose times are a
# few tens of milliseconds and noisy), the three ways interleaved run by run
# (topicsnap, CLI, CLI+views, topicsnap, ...) so that drift in the machine
# falls on all three alike, and reports the median wall time of:
#   topicsnap        bin/topicsnap sql --dir D -c "…" --format csv
#                    (process start + engine open + view build + the query)
#   duckdb CLI       duckdb -csv -c "…" over
#                    read_parquet('D/topic=bench/partition=*/*.parquet')
#   Go+DuckDB floor  scripts/benchtools/duckfloor running the CLI's SQL: a Go
#                    program that embeds DuckDB through the same driver and
#                    does nothing else, i.e. what any Go tool pays
#   duckdb CLI+views the DuckDB CLI running topicsnap's own view definitions
#                    (read back from topicsnap: duckdb_views()) and then the
#                    same query as topicsnap: separates what the views cost
#                    from what topicsnap's process/engine open costs
# for SELECT 1 (start-up / engine-open overhead), count(*), a per-partition
# gap scan and count(DISTINCT event_id) (through the view's parsed
# value.event_id, and through the raw bytes, decode(value_raw)->>'$.event_id'),
# and prints a markdown table with the
# ratio topicsnap / duckdb CLI. Each query's answers are compared across the
# three.
#
# Environment (all optional):
#   BENCH_DIR         work dir (default /tmp/topicsnap-bench)
#   BENCH_SNAP        snapshot folder to use as is (skips the N check)
#   RUNS              runs per query (default 3)
#   SHORT_RUNS        runs of SELECT 1, count(*) and the gap scan (default 11)
#   DUCKDB            DuckDB CLI binary to use (default: the one in the venv's
#                     duckdb-cli package, installed if missing)
#   DUCKDB_VERSION    duckdb-cli version to install (default: topicsnap's DuckDB version)
#   BENCH_NO_BUILD=1  use the existing bin/topicsnap as is
#   BENCH_QUIET_WAIT  seconds to wait for an idle machine before each query (600)
#   BENCH_QUIET_BUSY  "idle" means fewer busy cores than this (0.25)
set -euo pipefail
# The server's format=arrow is duckdb-go's Arrow interface: its build tag.
GOFLAGS="$(${GO:-go} env GOFLAGS)"
[[ " ${GOFLAGS:-} " == *duckdb_arrow* ]] || export GOFLAGS="$("${GO:-go}" env GOFLAGS) -tags=duckdb_arrow"

N="${1:-5000000}"
[[ "$N" =~ ^[0-9]+$ && "$N" -gt 0 ]] || { echo "usage: $0 [N]" >&2; exit 2; }
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
BENCH_DIR="${BENCH_DIR:-/tmp/topicsnap-bench}"
RUNS="${RUNS:-3}"
SHORT_RUNS="${SHORT_RUNS:-11}"
VENV="$HOME/.cache/topicsnap/venv"
TOPIC=bench

log() { echo "bench-sql: $*" >&2; }
die() { log "error: $*"; exit 1; }
# shellcheck source=bench-lib.sh
source "$ROOT/scripts/bench-lib.sh"

# ------------------------------------------------------------- snapshot

if [[ ! -x /usr/bin/time ]]; then
  log "installing GNU time (apt-get install -y time)"
  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq time; } >/dev/null || die "apt-get install time failed"
fi
command -v python3 >/dev/null || die "python3 is required"

SNAP="${BENCH_SNAP:-$BENCH_DIR/snap}"
if [[ -z "${BENCH_SNAP:-}" ]]; then
  if [[ ! -f "$BENCH_DIR/snap.records" || "$(cat "$BENCH_DIR/snap.records")" != "$N" || ! -d "$SNAP" ]]; then
    log "no snapshot of $N records in $SNAP: running scripts/bench-dump.sh $N"
    BENCH_SKIP_KCAT_F=1 scripts/bench-dump.sh "$N" >/dev/null
  fi
fi
[[ -d "$SNAP/topic=$TOPIC" ]] || die "$SNAP holds no topic $TOPIC"
SNAP="$(cd "$SNAP" && pwd)"

if [[ "${BENCH_NO_BUILD:-0}" != 1 ]]; then
  log "building bin/topicsnap"
  if ! go build -o bin/topicsnap ./cmd/topicsnap; then
    [[ -x bin/topicsnap ]] || die "go build ./cmd/topicsnap failed (another change in progress? retry in a few minutes)"
    log "warning: go build failed; using the existing bin/topicsnap"
  fi
fi
TS=(bin/topicsnap sql --dir "$SNAP" --format csv)
FLOOR="$BENCH_DIR/duckfloor"
if [[ "${BENCH_NO_BUILD:-0}" != 1 || ! -x "$FLOOR" ]]; then
  log "building scripts/benchtools/duckfloor"
  go build -o "$FLOOR" ./scripts/benchtools/duckfloor || die "go build ./scripts/benchtools/duckfloor failed"
fi

# ------------------------------------------------------------- DuckDB CLI

EMBEDDED="$("${TS[@]}" -c "SELECT version()" | tail -n 1 | tr -d '\r"v')"
[[ -n "${DUCKDB:-}" ]] || ensure_duckdb_cli "${DUCKDB_VERSION:-$EMBEDDED}"
[[ -n "$DUCKDB" ]] && { [[ -x "$DUCKDB" ]] || command -v "$DUCKDB" >/dev/null; } || die "no DuckDB CLI at '$DUCKDB'"
CLI_VERSION="$("$DUCKDB" -csv -noheader -c "SELECT version()" | tr -d '\r"v')"
[[ "$CLI_VERSION" == "$EMBEDDED" ]] || log "warning: DuckDB CLI $CLI_VERSION differs from topicsnap's embedded DuckDB $EMBEDDED"

# topicsnap's own views, to replay in the CLI (the "duckdb CLI+views" column).
VIEWS_SQL="$("${TS[@]}" -c "SELECT sql FROM duckdb_views() WHERE NOT internal AND view_name IN ('$TOPIC\$all', '$TOPIC') ORDER BY view_name = '$TOPIC'" \
  | python3 -c 'import csv,sys; r=list(csv.reader(sys.stdin))[1:]; print("\n".join(x[0] for x in r))')"
[[ "$(grep -c '^CREATE VIEW' <<<"$VIEWS_SQL")" == 2 ]] || die "could not read topicsnap's view definitions"

GLOB="read_parquet('$SNAP/topic=$TOPIC/partition=*/*.parquet')"

# ------------------------------------------------------------- timing

OUT="$BENCH_DIR/sql"
mkdir -p "$OUT"

# CPU seconds (user+sys) of every timed run so far, from /usr/bin/time.
CPU_LOG="$OUT/cpu.log"
: >"$CPU_LOG"
runs_cpu() { awk '{s += $1 + $2} END{printf "%.2f", s}' "$CPU_LOG"; }

# median FILE: the median of the numbers in FILE, one per line.
median() { sort -g "$1" | awk '{a[NR]=$1} END{ if (NR%2) print a[(NR+1)/2]; else printf "%.4f\n", (a[NR/2]+a[NR/2+1])/2 }'; }

# time_one NAME CMD... : runs CMD once, stdout to $OUT/NAME.out, and appends
# its wall seconds to $OUT/NAME.times.
time_one() {
  local name="$1" t0 t1
  shift
  t0="$EPOCHREALTIME"
  if ! /usr/bin/time -a -o "$CPU_LOG" -f '%U %S' "$@" >"$OUT/$name.out" 2>"$OUT/$name.err"; then
    cat "$OUT/$name.err" >&2
    die "$name failed: $*"
  fi
  t1="$EPOCHREALTIME"
  awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.4f\n", b-a}' >>"$OUT/$name.times"
}

# answer FILE: the data lines of a CSV result, without header and quotes.
answer() { tail -n +2 "$1" | tr -d '\r"' | sort | tr '\n' ' ' | sed 's/ $//'; }

declare -a ROWS=()
# bench LABEL TOPICSNAP_SQL DUCKDB_SQL
bench() {
  local label="$1" tsq="$2" dq="$3" runs="${4:-$RUNS}" slug i
  slug="$(tr -c 'a-zA-Z0-9\n' '_' <<<"$label")"
  wait_quiet
  log "$label ($runs runs each)"
  local ts dk dv fl s0 s1 c0 c1 other
  s0="$(sys_busy_ticks)"
  c0="$(runs_cpu)"
  rm -f "$OUT/$slug".*.times
  for ((i = 0; i < runs; i++)); do
    time_one "$slug.topicsnap" "${TS[@]}" -c "$tsq"
    time_one "$slug.duckdb" "$DUCKDB" -csv -c "$dq"
    time_one "$slug.floor" "$FLOOR" "$dq"
    time_one "$slug.duckdb-views" "$DUCKDB" -csv -c "$VIEWS_SQL
$tsq"
  done
  ts="$(median "$OUT/$slug.topicsnap.times")"
  dk="$(median "$OUT/$slug.duckdb.times")"
  dv="$(median "$OUT/$slug.duckdb-views.times")"
  fl="$(median "$OUT/$slug.floor.times")"
  s1="$(sys_busy_ticks)"
  c1="$(runs_cpu)"
  other="$(awk -v a="$s0" -v b="$s1" -v c="$c0" -v d="$c1" -v hz="$CLK_TCK" 'BEGIN{o=(b-a)/hz-(d-c); if (o < 0) o = 0; printf "%.1f", o}')"
  local a1 a2 a3 a4 same=yes
  a1="$(answer "$OUT/$slug.topicsnap.out")"
  a2="$(answer "$OUT/$slug.duckdb.out")"
  a3="$(answer "$OUT/$slug.duckdb-views.out")"
  a4="$(answer "$OUT/$slug.floor.out")"
  if [[ "$a1" != "$a2" || "$a1" != "$a3" || "$a1" != "$a4" ]]; then
    same="NO"
    log "warning: answers differ for $label: topicsnap [$a1] duckdb [$a2] duckdb+views [$a3] floor [$a4]"
  fi
  ROWS+=("$label|$ts|$dk|$dv|$same|$a1|$other|$fl")
  log "  topicsnap ${ts}s, duckdb CLI ${dk}s, duckdb CLI+views ${dv}s, Go+DuckDB floor ${fl}s, other cpu ${other}s, answer [$a1]"
}

bench "SELECT 1 (start-up)" \
  "SELECT 1 AS n" \
  "SELECT 1 AS n" "$SHORT_RUNS"
bench "count(*)" \
  "SELECT count(*) AS n FROM $TOPIC" \
  "SELECT count(*) AS n FROM $GLOB" "$SHORT_RUNS"
bench "gap scan per partition" \
  "SELECT \"partition\", max(\"offset\") - min(\"offset\") + 1 - count(*) AS gaps FROM $TOPIC GROUP BY 1 ORDER BY 1" \
  "SELECT \"partition\", max(\"offset\") - min(\"offset\") + 1 - count(*) AS gaps FROM $GLOB GROUP BY 1 ORDER BY 1" "$SHORT_RUNS"
bench "count(DISTINCT event_id)" \
  "SELECT count(DISTINCT value.event_id) AS n FROM $TOPIC" \
  "SELECT count(DISTINCT json_extract_string(decode(value), '\$.event_id')) AS n FROM $GLOB"
bench "count(DISTINCT event_id), raw bytes" \
  "SELECT count(DISTINCT decode(value_raw)->>'\$.event_id') AS n FROM $TOPIC" \
  "SELECT count(DISTINCT json_extract_string(decode(value), '\$.event_id')) AS n FROM $GLOB"

# ------------------------------------------------------------- report

RECORDS="$(cat "$BENCH_DIR/snap.records" 2>/dev/null || echo "?")"
[[ -n "${BENCH_SNAP:-}" ]] && RECORDS="?"
FILES="$(find "$SNAP/topic=$TOPIC" -name '*.parquet' | wc -l)"
SIZE="$(du -sb "$SNAP/topic=$TOPIC" | awk '{printf "%.1f MB", $1/1e6}')"
OPEN_TS="$(cut -d'|' -f2 <<<"${ROWS[0]}")"
OPEN_DK="$(cut -d'|' -f3 <<<"${ROWS[0]}")"
{
  echo
  echo "### topicsnap sql vs DuckDB CLI $CLI_VERSION: $RECORDS records, $FILES files, $SIZE"
  echo
  echo "$(date -u +%Y-%m-%dT%H:%M:%SZ), $(nproc) cores, topicsnap at $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo "?")$(git -C "$ROOT" diff --quiet HEAD -- dump catalog queries cmd 2>/dev/null || echo "+local changes"), median of $SHORT_RUNS runs (SELECT 1, count(*), gap scan) or $RUNS runs (the others) per way, the three ways interleaved run by run, wall seconds per process (start to exit). topicsnap's embedded DuckDB: $EMBEDDED."
  echo
  echo "| query | topicsnap s | duckdb CLI s | ratio | topicsnap − open s | duckdb CLI+views s | same answer | answer | other CPU s | Go+DuckDB floor s | floor ratio |"
  echo "|---|---:|---:|---:|---:|---:|---|---|---:|---:|---:|"
  for r in "${ROWS[@]}"; do
    IFS='|' read -r label ts dk dv same ans other fl <<<"$r"
    awk -v l="$label" -v ts="$ts" -v dk="$dk" -v dv="$dv" -v s="$same" -v a="$ans" -v ots="$OPEN_TS" -v odk="$OPEN_DK" -v o="$other" -v fl="$fl" 'BEGIN{
      if (length(a) > 40) a = substr(a, 1, 37) "..."
      net = (l ~ /^SELECT 1/) ? "-" : sprintf("%.3f", ts - ots)
      printf "| %s | %.3f | %.3f | %.2f | %s | %.3f | %s | %s | %s | %.3f | %.2f |\n", l, ts, dk, ts/dk, net, dv, s, a, o, fl, fl/dk }'
  done
  echo
  echo "topicsnap engine open overhead (SELECT 1, topicsnap minus duckdb CLI): $(awk -v a="$OPEN_TS" -v b="$OPEN_DK" 'BEGIN{printf "%.3f s", a-b}')"
  echo "\"topicsnap − open\" is the topicsnap time minus its own SELECT 1 time: the query alone."
  echo "other CPU s: CPU time used by everything else on the machine during that row's runs (noise; ideally ~0)."
  echo "Go+DuckDB floor: scripts/benchtools/duckfloor (DuckDB through duckdb-go, nothing else) running the CLI's SQL; floor ratio = floor / CLI."
} | tee "$BENCH_DIR/bench-sql.md"
