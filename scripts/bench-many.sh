#!/usr/bin/env bash
# Benchmark the dump's fixed cost per partition and per topic (issue 32):
# dump.BenchmarkDumpManySmallPartitions, which dumps the same 60,000
# records from one topic of 4 partitions (one-topic) and from 300 topics of
# 4 partitions (many-topics, --topic-regex), then an incremental dump of N
# partitions with nothing new (noop), each reporting records/s (or s) and
# the peak RSS of the process.
#
# Usage: scripts/bench-many.sh [BASE]
#
# With BASE (a commit, e.g. main), the benchmark is also built from BASE (a
# temporary git worktree holding this benchmark's file) and the two are run
# alternated, BENCH_REPEAT times each, so both see the same machine; the
# table shows the median of each. The machine is shared: the table says
# how busy it was (load average, and the CPU time everything else used).
#
# Environment (all optional):
#   BENCH_BROKERS            a real broker (e.g. the dev broker 127.0.0.1:39092);
#                            default an in-process kfake cluster. The benchmark
#                            creates its topics under a unique prefix
#                            (benchmany-PID-...) and deletes them at the end.
#   BENCH_NOOP_PARTITIONS    partitions of the incremental no-op (default 12000)
#   BENCH_REPEAT             runs of each build (default 3)
#   BENCH_RUN                which sub-benchmarks (default all: one-topic,
#                            many-topics=300, noop=N), a go test -bench regex
#                            below DumpManySmallPartitions/
#   BENCH_DIR                work dir (default /tmp/topicsnap-bench-many)
set -euo pipefail
GOFLAGS="$(${GO:-go} env GOFLAGS)"
[[ " ${GOFLAGS:-} " == *duckdb_arrow* ]] || export GOFLAGS="$("${GO:-go}" env GOFLAGS) -tags=duckdb_arrow"

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
BASE="${1:-}"
BENCH_DIR="${BENCH_DIR:-/tmp/topicsnap-bench-many}"
REPEAT="${BENCH_REPEAT:-3}"
NOOP="${BENCH_NOOP_PARTITIONS:-12000}"
log() { echo "bench-many: $*" >&2; }
die() { log "error: $*"; exit 1; }
# shellcheck source=bench-lib.sh
source "$ROOT/scripts/bench-lib.sh"
[[ "$REPEAT" =~ ^[1-9][0-9]*$ ]] || die "BENCH_REPEAT must be a positive number"
[[ "$NOOP" =~ ^[0-9]+$ && "$NOOP" -ge 4 ]] || die "BENCH_NOOP_PARTITIONS must be a number of partitions, at least 4"
mkdir -p "$BENCH_DIR"
rm -f "$BENCH_DIR"/runs.txt

HEAD_NAME="$(git rev-parse --short HEAD)$(git diff --quiet HEAD -- dump catalog 2>/dev/null || echo "+local changes")"
log "building the benchmark at $HEAD_NAME"
go test -c -o "$BENCH_DIR/new.test" ./dump
BUILDS=(new)
NAMES=("$HEAD_NAME")
if [[ -n "$BASE" ]]; then
  base_sha="$(git rev-parse --short "$BASE^{commit}")" || die "no commit $BASE"
  wt="$BENCH_DIR/base-src"
  git worktree remove --force "$wt" 2>/dev/null || rm -rf "$wt"
  git worktree add --detach "$wt" "$base_sha" >/dev/null
  trap 'git -C "$ROOT" worktree remove --force "$wt" 2>/dev/null || true' EXIT
  # The base may predate the benchmark: it is the same file either way.
  cp dump/many_bench_test.go "$wt/dump/"
  log "building the benchmark at $base_sha ($BASE)"
  (cd "$wt" && go test -c -o "$BENCH_DIR/base.test" ./dump)
  BUILDS=(base new)
  NAMES=("$base_sha" "$HEAD_NAME")
fi

filter="DumpManySmallPartitions/${BENCH_RUN:-.}"
export TOPICSNAP_BENCH_NOOP_PARTITIONS="$NOOP"
if [[ -n "${BENCH_BROKERS:-}" ]]; then
  export TOPICSNAP_BENCH_BROKERS="$BENCH_BROKERS"
else
  unset TOPICSNAP_BENCH_BROKERS
fi
for ((i = 1; i <= REPEAT; i++)); do
  order=("${BUILDS[@]}")
  # Alternated: base first on odd runs, new first on even ones.
  ((i % 2 == 0 && ${#BUILDS[@]} == 2)) && order=(new base)
  for b in "${order[@]}"; do
    log "run $i/$REPEAT of $b"
    s0="$(sys_busy_ticks)"
    t0="$EPOCHREALTIME"
    out="$(cd "$BENCH_DIR" && "./$b.test" -test.run '^$' -test.bench "$filter" -test.benchtime 1x 2>&1)" || { echo "$out" | tail -n 20 >&2; die "$b failed"; }
    t1="$EPOCHREALTIME"
    s1="$(sys_busy_ticks)"
    # The machine's busy cores during the run (this run included).
    busy="$(awk -v a="$s0" -v b="$s1" -v t0="$t0" -v t1="$t1" -v hz="$CLK_TCK" 'BEGIN{printf "%.2f", (b-a)/hz/(t1-t0)}')"
    load="$(cut -d' ' -f1 /proc/loadavg)"
    # BenchmarkDumpManySmallPartitions/one-topic-2  1  516118994 ns/op  110.2 peak-rss-MiB  116252 records/s
    echo "$out" | awk -v b="$b" -v busy="$busy" -v load="$load" '/^BenchmarkDumpManySmallPartitions\//{
      name = $1; sub(/^BenchmarkDumpManySmallPartitions\//, "", name); sub(/-[0-9]+$/, "", name)
      ns = ""; rss = ""; rps = ""; cpu = ""
      for (i = 2; i < NF; i++) {
        if ($(i+1) == "ns/op") ns = $i
        if ($(i+1) == "peak-rss-MiB") rss = $i
        if ($(i+1) == "records/s") rps = $i
        if ($(i+1) == "cpu-s/op") cpu = $i
      }
      printf "%s|%s|%s|%s|%s|%s|%s|%s\n", b, name, ns, rps, rss, busy, load, cpu }' | tee -a "$BENCH_DIR/runs.txt" >&2
  done
done

# The median run (by time) of each build and sub-benchmark.
{
  echo
  echo "### dump: one topic against many small ones, and an incremental no-op ($(date -u +%Y-%m-%dT%H:%M:%SZ))"
  echo
  echo "$(nproc) cores, $(go version | awk '{print $3}'), broker ${BENCH_BROKERS:-kfake (in-process)}, median of $REPEAT alternated run(s) each; busy cores: the whole machine's during the run (this one included), load: 1-minute load average after it"
  echo
  echo "| build | benchmark | s | records/s | vs one-topic | CPU s | peak RSS MiB | busy cores | load |"
  echo "|---|---|---:|---:|---:|---:|---:|---:|---:|"
  for i in "${!BUILDS[@]}"; do
    b="${BUILDS[$i]}"
    one="$(awk -F'|' -v b="$b" '$1 == b && $2 == "one-topic" {print $3, $4}' "$BENCH_DIR/runs.txt" | sort -n | awk '{a[NR] = $2} END{print a[int((NR + 1) / 2)]}')"
    for name in $(awk -F'|' -v b="$b" '$1 == b {print $2}' "$BENCH_DIR/runs.txt" | awk '!seen[$0]++'); do
      awk -F'|' -v b="$b" -v n="$name" '$1 == b && $2 == n' "$BENCH_DIR/runs.txt" | sort -t'|' -k3,3n |
        awk -F'|' -v cnt="$REPEAT" -v label="${NAMES[$i]}" -v one="$one" '{r[NR] = $0} END{
          split(r[int((NR + 1) / 2)], f, "|")
          vs = (f[4] != "" && one != "" && one > 0) ? sprintf("%.3f", f[4] / one) : "-"
          printf "| %s | %s | %.2f | %s | %s | %s | %.0f | %s | %s |\n", label, f[2], f[3] / 1e9, (f[4] == "" ? "-" : sprintf("%.0f", f[4])), vs, f[8], f[5], f[6], f[7] }'
    done
  done
} | tee "$BENCH_DIR/bench-many.md"
