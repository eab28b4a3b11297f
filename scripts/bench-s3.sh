#!/usr/bin/env bash
# Benchmark queries over a snapshot in a bucket against the same snapshot in
# a local folder, side by side in one run.
#
# Usage: scripts/bench-s3.sh [N]        (default 5000000)
#
# It writes an N-record snapshot by code (scripts/benchtools/mksnap: topic
# "bench", 6 partitions, files of 200,000 records) into $BENCH_DIR/s3-local
# if missing, starts a real S3 server (scripts/s3.sh: versitygw on
# loopback), copies the folder into s3://BUCKET/bench with `topicsnap
# catalog copy` (timed), then times, RUNS times each, interleaved run by
# run so that drift in the machine falls on all alike, the median wall time
# of `topicsnap sql -c Q --format csv` for Q = count(*) and a per-partition
# gap scan, three ways:
#   folder          --dir the local folder
#   bucket, cold    --dir s3://... with an empty --s3-cache: every file the
#                   manifests list is fetched, then queried locally
#   bucket, warm    --dir s3://... with the cache of the previous run: the
#                   manifests are read and each file's size and ETag are
#                   compared with the bucket's listing; nothing is fetched
# and, as the peer for the route topicsnap did not take (DuckDB's httpfs
# reading the bucket directly; the httpfs on PyPI is built for DuckDB 1.5.5
# and refuses the 1.5.6 that topicsnap links), the DuckDB 1.5.5 CLI from
# PyPI (duckdb-cli, duckdb-extension-httpfs, in a venv under
# ~/.cache/topicsnap/venv-httpfs-1.5.5) running the same query over
#   duckdb CLI, folder   read_parquet('FOLDER/topic=bench/partition=*/*.parquet')
#   duckdb CLI, httpfs   read_parquet('s3://BUCKET/bench/topic=bench/partition=*/*.parquet')
# Each way's answers are compared. Prints a markdown table. Stops the S3
# server it started.
#
# Environment (all optional):
#   BENCH_DIR         work dir (default /tmp/topicsnap-bench)
#   RUNS              runs per query and way (default 5)
#   TOPICSNAP_S3_PORT port of the S3 server (default 38290)
#   TOPICSNAP_S3_DIR  its state dir (default $BENCH_DIR/s3-server)
#   BENCH_NO_BUILD=1  use the existing bin/topicsnap as is
#   BENCH_QUIET_WAIT  seconds to wait for an idle machine before each query (600)
#   BENCH_HTTPFS=0    leave out the DuckDB CLI + httpfs peer
set -euo pipefail
# The server's format=arrow is duckdb-go's Arrow interface: its build tag.
GOFLAGS="$(${GO:-go} env GOFLAGS)"
[[ " ${GOFLAGS:-} " == *duckdb_arrow* ]] || export GOFLAGS="$("${GO:-go}" env GOFLAGS) -tags=duckdb_arrow"

N="${1:-5000000}"
[[ "$N" =~ ^[0-9]+$ && "$N" -gt 0 ]] || { echo "usage: $0 [N]" >&2; exit 2; }
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
BENCH_DIR="${BENCH_DIR:-/tmp/topicsnap-bench}"
RUNS="${RUNS:-5}"
export TOPICSNAP_S3_PORT="${TOPICSNAP_S3_PORT:-38290}"
export TOPICSNAP_S3_DIR="${TOPICSNAP_S3_DIR:-$BENCH_DIR/s3-server}"
LOCAL="$BENCH_DIR/s3-local"
CACHE="$BENCH_DIR/s3-cache"

log() { echo "bench-s3: $*" >&2; }
die() { log "error: $*"; exit 1; }
# shellcheck source=bench-lib.sh
source "$ROOT/scripts/bench-lib.sh"

mkdir -p "$BENCH_DIR"
if [[ ! -f "$BENCH_DIR/s3-local.records" || "$(cat "$BENCH_DIR/s3-local.records")" != "$N" || ! -f "$LOCAL/topicsnap.json" ]]; then
  log "writing a snapshot of $N records into $LOCAL (mksnap)"
  rm -rf "$LOCAL"
  go run ./scripts/benchtools/mksnap "$LOCAL" "$N" >&2
  echo "$N" >"$BENCH_DIR/s3-local.records"
fi
if [[ "${BENCH_NO_BUILD:-0}" != 1 ]]; then
  log "building bin/topicsnap"
  go build -o bin/topicsnap ./cmd/topicsnap
fi
TS="$ROOT/bin/topicsnap"

HTTPFS="${BENCH_HTTPFS:-1}"
if [[ "$HTTPFS" == 1 ]]; then
  VENV="$HOME/.cache/topicsnap/venv-httpfs-1.5.5"
  if ! compgen -G "$VENV/lib/python3*/site-packages/duckdb_cli/duckdb" >/dev/null || ! compgen -G "$VENV/lib/python3*/site-packages/duckdb_extension_httpfs/extensions/v1.5.5/httpfs.duckdb_extension" >/dev/null; then
    log "installing duckdb-cli 1.5.5 and duckdb-extension-httpfs 1.5.5 from PyPI into $VENV"
    python3 -m venv "$VENV" && "$VENV/bin/pip" install -q duckdb-cli==1.5.5 duckdb-extension-httpfs==1.5.5 >&2 || die "pip install failed"
  fi
  # the binary inside the package, not the wheel's Python wrapper (~80 ms a call)
  DUCKDB="$(compgen -G "$VENV/lib/python3*/site-packages/duckdb_cli/duckdb" | head -n 1)"
  EXT="$(compgen -G "$VENV/lib/python3*/site-packages/duckdb_extension_httpfs/extensions/v1.5.5/httpfs.duckdb_extension" | head -n 1)"
fi

trap 'scripts/s3.sh stop >/dev/null 2>&1 || true' EXIT
ENV_LINES="$(scripts/s3.sh start)"
eval "$(echo "$ENV_LINES" | sed 's/^/export /')"
export AWS_ACCESS_KEY_ID="$S3_ACCESS_KEY" AWS_SECRET_ACCESS_KEY="$S3_SECRET_KEY" AWS_REGION="$S3_REGION"
URL="s3://$S3_BUCKET/bench"
# (in variables: quotes inside a ${q//…/…} replacement would be removed)
CLI_LOCAL="read_parquet('$LOCAL/topic=bench/partition=*/*.parquet')"
CLI_BUCKET="read_parquet('$URL/topic=bench/partition=*/*.parquet')"
SECRET_SQL="LOAD '${EXT:-}'; CREATE SECRET (TYPE s3, KEY_ID '$S3_ACCESS_KEY', SECRET '$S3_SECRET_KEY', ENDPOINT '${S3_ENDPOINT#http://}', URL_STYLE 'path', USE_SSL false, REGION '$S3_REGION');"
S3FLAGS=(--s3-endpoint "$S3_ENDPOINT" --s3-cache "$CACHE")

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN{printf "%.3f", b-a}'; }

BYTES="$(du -sb "$LOCAL" | cut -f1)"
t0="$(now)"
"$TS" catalog copy "$LOCAL" "$URL" "${S3FLAGS[@]}" >&2
t1="$(now)"
UPLOAD="$(elapsed "$t0" "$t1")"
log "uploaded $BYTES bytes in ${UPLOAD}s"

# run WAY Q: prints "seconds answer" for one run of Q the given way.
run() {
  local way="$1" q="$2" out t0 t1
  case "$way" in
    cold) rm -rf "$CACHE" ;;
  esac
  t0="$(now)"
  case "$way" in
    folder) out="$("$TS" sql --dir "$LOCAL" -c "$q" --format csv 2>/dev/null | tail -n +2 | tr '\n' ' ')" ;;
    cli-folder) out="$("$DUCKDB" -csv -c "${q//FROM bench/FROM $CLI_LOCAL}" 2>/dev/null | tail -n +2 | tr '\n' ' ')" ;;
    cli-httpfs) out="$("$DUCKDB" -csv -c "$SECRET_SQL ${q//FROM bench/FROM $CLI_BUCKET}" 2>/dev/null | grep -v '^Success$\|^true$' | tail -n +2 | tr '\n' ' ')" ;;
    *) out="$("$TS" sql --dir "$URL" "${S3FLAGS[@]}" -c "$q" --format csv 2>/dev/null | tail -n +2 | tr '\n' ' ')" ;;
  esac
  t1="$(now)"
  echo "$(elapsed "$t0" "$t1") $out"
}

median() { sort -n | awk '{a[NR]=$1} END{print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

declare -A TIMES ANSWERS
QUERIES=("count(*)" "gap scan per partition")
declare -A SQL=(
  ["count(*)"]="SELECT count(*) AS n FROM bench"
  ["gap scan per partition"]="SELECT \"partition\", max(\"offset\") - min(\"offset\") + 1 - count(*) AS gaps FROM bench GROUP BY 1 ORDER BY 1"
)
WAYS=(folder cold warm)
[[ "$HTTPFS" == 1 ]] && WAYS+=(cli-folder cli-httpfs)
for q in "${QUERIES[@]}"; do
  wait_quiet
  for ((i = 0; i < RUNS; i++)); do
    for w in "${WAYS[@]}"; do
      read -r secs ans <<<"$(run "$w" "${SQL[$q]}")"
      TIMES["$q|$w"]+="$secs "
      prev="${ANSWERS["$q"]:-}"
      if [[ -z "$prev" ]]; then
        ANSWERS["$q"]="$ans"
      elif [[ "$prev" != "$ans" ]]; then
        die "$q: the $w way answered '$ans', another '$prev'"
      fi
    done
  done
  log "$q: answers agree (${ANSWERS[$q]})"
done

med() { tr ' ' '\n' <<<"${TIMES["$1|$2"]:-}" | grep . | median; }
if [[ "$HTTPFS" == 1 ]]; then
  echo "| query ($N records, $(awk -v b="$BYTES" 'BEGIN{printf "%.0f MB", b/1e6}')) | topicsnap, folder | topicsnap, bucket, cold cache | topicsnap, bucket, warm cache | DuckDB 1.5.5 CLI, folder | DuckDB 1.5.5 CLI + httpfs, bucket |"
  echo "|---|---|---|---|---|---|"
else
  echo "| query ($N records, $(awk -v b="$BYTES" 'BEGIN{printf "%.0f MB", b/1e6}')) | topicsnap, folder | topicsnap, bucket, cold cache | topicsnap, bucket, warm cache |"
  echo "|---|---|---|---|"
fi
for q in "${QUERIES[@]}"; do
  line="| $q | $(med "$q" folder) s | $(med "$q" cold) s | $(med "$q" warm) s |"
  [[ "$HTTPFS" == 1 ]] && line+=" $(med "$q" cli-folder) s | $(med "$q" cli-httpfs) s |"
  echo "$line"
done
echo
echo "Upload (topicsnap catalog copy folder -> bucket): ${UPLOAD} s for $(awk -v b="$BYTES" 'BEGIN{printf "%.0f MB", b/1e6}'). Median of $RUNS runs, interleaved."
