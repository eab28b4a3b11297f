#!/usr/bin/env bash
# Benchmark `topicsnap catalog compact`: a folder of many small files (by
# scripts/benchtools/mksnap, no broker: topic "bench", 6 partitions, N
# records in files of FILE_RECORDS), its file count and the time of
# `check gaps` on it, then compact, then the same again; and the two gaps
# answers compared byte for byte, and catalog verify.
#
# Usage: scripts/bench-compact.sh [N] [FILE_RECORDS]
#        (default 600000 records in files of 300: 2,000 files)
#
# Each `check gaps` is timed BENCH_REPEAT times (default 3); the table shows
# the median. It does not wait for an idle machine: say how busy it was.
#
# Environment (all optional):
#   BENCH_DIR      work dir (default /tmp/topicsnap-bench-compact)
#   BENCH_REPEAT   runs of each timed command (default 3)
#   BENCH_NO_BUILD=1  use the existing bin/topicsnap as is
set -euo pipefail
GOFLAGS="$(${GO:-go} env GOFLAGS)"
[[ " ${GOFLAGS:-} " == *duckdb_arrow* ]] || export GOFLAGS="$("${GO:-go}" env GOFLAGS) -tags=duckdb_arrow"

N="${1:-600000}"
FR="${2:-300}"
[[ "$N" =~ ^[0-9]+$ && "$FR" =~ ^[0-9]+$ && "$N" -gt 0 && "$FR" -gt 0 ]] || { echo "usage: $0 [N] [FILE_RECORDS]" >&2; exit 2; }
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
BENCH_DIR="${BENCH_DIR:-/tmp/topicsnap-bench-compact}"
REPEAT="${BENCH_REPEAT:-3}"
BIN="$ROOT/bin/topicsnap"
if [[ -z "${BENCH_NO_BUILD:-}" ]]; then
  go build -o "$BIN" ./cmd/topicsnap
fi
rm -rf "$BENCH_DIR"
mkdir -p "$BENCH_DIR"
SNAP="$BENCH_DIR/snap"
go run ./scripts/benchtools/mksnap "$SNAP" "$N" "$FR"

files() { find "$SNAP" -name '*.parquet' | wc -l; }
# median_time CMD...: the median wall time of REPEAT runs, in seconds.
median_time() {
  local ts=()
  for _ in $(seq "$REPEAT"); do
    local t0 t1
    t0=$(date +%s.%N)
    "$@" >/dev/null
    t1=$(date +%s.%N)
    ts+=("$(echo "$t1 - $t0" | bc)")
  done
  printf '%s\n' "${ts[@]}" | sort -n | awk '{a[NR]=$1} END {printf "%.3f", a[int((NR+1)/2)]}'
}
load() { cut -d' ' -f1 /proc/loadavg; }

files_before=$(files)
bytes_before=$(du -sb "$SNAP" | cut -f1)
"$BIN" check gaps --dir "$SNAP" --topic bench --format json > "$BENCH_DIR/gaps-before.json"
load_before=$(load)
gaps_before=$(median_time "$BIN" check gaps --dir "$SNAP" --topic bench)
t0=$(date +%s.%N)
"$BIN" catalog compact --dir "$SNAP" --min-age 0s --grace 0s | tee "$BENCH_DIR/compact.txt"
t1=$(date +%s.%N)
compact_s=$(echo "$t1 - $t0" | bc)
files_after=$(files)
bytes_after=$(du -sb "$SNAP" | cut -f1)
"$BIN" check gaps --dir "$SNAP" --topic bench --format json > "$BENCH_DIR/gaps-after.json"
load_after=$(load)
gaps_after=$(median_time "$BIN" check gaps --dir "$SNAP" --topic bench)
cmp -s "$BENCH_DIR/gaps-before.json" "$BENCH_DIR/gaps-after.json" && same=yes || same=NO
"$BIN" catalog verify --dir "$SNAP"

echo
echo "| | files | bytes | check gaps (median of $REPEAT) | load average |"
echo "|---|---:|---:|---:|---:|"
echo "| before compact | $files_before | $bytes_before | ${gaps_before} s | $load_before |"
echo "| after compact | $files_after | $bytes_after | ${gaps_after} s | $load_after |"
echo
echo "compact: ${compact_s} s for $N records; check gaps answers identical before and after: $same"
echo "commit $(git rev-parse --short HEAD), $(nproc) cores"
[[ $same == yes ]]
