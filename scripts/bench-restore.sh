#!/usr/bin/env bash
# Benchmark `topicsnap restore` (transactional, exactly once) against
# `kcat -P` producing the same records from a file (no transactions) to the
# same broker, in one run.
#
# Usage: scripts/bench-restore.sh [N]        (N records, default 1000000)
#
# It builds bin/topicsnap and the bench tools, starts a separate Kafka broker
# for benchmarks (its own state dir and ports, so neither the test broker on
# 39092 nor bench-dump's on 39192 is disturbed), produces N JSON events of
# ~200 bytes into topic `rsrc` (6 partitions, scripts/benchtools/produce),
# dumps it with topicsnap into $BENCH_DIR/snap, writes its records as
# key<TAB>value lines for kcat (scripts/benchtools/restorefile), then, each
# into a new topic of 6 partitions:
#   topicsnap  bin/topicsnap restore --dir $BENCH_DIR/snap --topic rsrc --to-topic rdst-I
#              (creates the topic; transactions with the progress committed in them)
#   kcat -P    kcat -P -t kdst-I -K '\t' -l records.txt (librdkafka's default
#              partitioner on the key; no transactions)
# and prints one markdown table: wall time, records/s, MB/s (key+value bytes,
# 10^6 B), CPU time of the tool, CPU time the broker spent meanwhile, peak RSS
# (/usr/bin/time %M), the CPU time used by everything else meanwhile, and
# the size of the target topic's log directories on the broker it started
# (its compression's outcome; "?" with BENCH_BROKERS). It
# checks each target holds N records (restore: its summary line and the sum
# of the committed progress is not read; kcat: the sum of high watermarks).
#
# Environment (all optional):
#   BENCH_DIR             work dir (default /tmp/topicsnap-bench-restore)
#   BENCH_BROKERS         use this running broker instead of starting one
#   BENCH_KEEP_BROKER=1   leave the started broker running
#   BENCH_REPEAT          runs per tool (default 1), alternated, after one unmeasured
#                         warm-up run of each; the table shows the median
#   BENCH_RESTORE_ARGS    extra flags for topicsnap restore
#   BENCH_KCAT_ARGS       extra flags for kcat -P (e.g. "-X linger.ms=5 -z lz4")
#   BENCH_NO_BUILD=1      use the existing bin/topicsnap as is
#   BENCH_BASE_BIN        another topicsnap binary (e.g. a build of main) whose
#                         restore runs too, alternated with the others: the
#                         row "topicsnap restore (base)"
#   BENCH_BASE_ARGS       extra flags for the base's restore (default: BENCH_RESTORE_ARGS)
#   BENCH_QUIET_WAIT, BENCH_QUIET_BUSY   see bench-lib.sh (wait_quiet)
set -euo pipefail
# The server's format=arrow is duckdb-go's Arrow interface: its build tag.
GOFLAGS="$(${GO:-go} env GOFLAGS)"
[[ " ${GOFLAGS:-} " == *duckdb_arrow* ]] || export GOFLAGS="$("${GO:-go}" env GOFLAGS) -tags=duckdb_arrow"

N="${1:-1000000}"
[[ "$N" =~ ^[0-9]+$ && "$N" -gt 0 ]] || { echo "usage: $0 [N]" >&2; exit 2; }

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
BENCH_DIR="${BENCH_DIR:-/tmp/topicsnap-bench-restore}"
PARTITIONS=6
export TOPICSNAP_KAFKA_DIR="${TOPICSNAP_KAFKA_DIR:-/tmp/topicsnap-kafka-bench-restore}"
export TOPICSNAP_KAFKA_PORT="${TOPICSNAP_KAFKA_PORT:-39292}"
export TOPICSNAP_KAFKA_SASL_PORT="${TOPICSNAP_KAFKA_SASL_PORT:-39293}"
export TOPICSNAP_KAFKA_CONTROLLER_PORT="${TOPICSNAP_KAFKA_CONTROLLER_PORT:-39294}"
export TOPICSNAP_KAFKA_SSL_PORT="${TOPICSNAP_KAFKA_SSL_PORT:-39295}"
export TOPICSNAP_KAFKA_HEAP="${TOPICSNAP_KAFKA_HEAP:--Xms1g -Xmx1g}"
BROKERS="${BENCH_BROKERS:-127.0.0.1:$TOPICSNAP_KAFKA_PORT}"

log() { echo "bench-restore: $*" >&2; }
die() { log "error: $*"; exit 1; }
# shellcheck source=bench-lib.sh
source "$ROOT/scripts/bench-lib.sh"

KCAT="$(scripts/kcat.sh)" || die "kcat is needed (scripts/kcat.sh)"
[[ -x /usr/bin/time ]] || die "GNU time is needed: apt-get install time"

mkdir -p "$BENCH_DIR/bin"
if [[ "${BENCH_NO_BUILD:-0}" != 1 ]]; then
  log "building bin/topicsnap"
  go build -o bin/topicsnap ./cmd/topicsnap || die "go build ./cmd/topicsnap failed"
fi
[[ -x bin/topicsnap ]] || die "bin/topicsnap missing"
go build -o "$BENCH_DIR/bin/produce" ./scripts/benchtools/produce
go build -o "$BENCH_DIR/bin/bareconsume" ./scripts/benchtools/bareconsume
go build -o "$BENCH_DIR/bin/restorefile" ./scripts/benchtools/restorefile

if [[ -z "${BENCH_BROKERS:-}" ]]; then
  stop_broker() { [[ "${BENCH_KEEP_BROKER:-0}" == 1 ]] || scripts/kafka.sh stop || true; }
  trap stop_broker EXIT
  if ! scripts/kafka.sh status >/dev/null 2>&1; then
    log "starting the bench broker ($TOPICSNAP_KAFKA_DIR, $BROKERS)"
    scripts/kafka.sh start >"$BENCH_DIR/kafka.env"
  fi
  BROKER_PID="$(cat "$TOPICSNAP_KAFKA_DIR/kafka.pid")"
else
  BROKER_PID="$(pgrep -f 'kafka\.Kafka' | head -n 1 || true)"
fi
broker_cpu_ticks() { if [[ -n "$BROKER_PID" ]]; then awk '{print $14 + $15}' "/proc/$BROKER_PID/stat"; else echo 0; fi; }
count() { "$BENCH_DIR/bin/bareconsume" --brokers "$BROKERS" --topic "$1" --count-only; }
# topic_mb TOPIC: the bytes of TOPIC's log segments (*.log; the index
# files are preallocated) in the started broker's log.dirs, MB (10^6 B);
# "?" for a broker it did not start.
topic_mb() {
  if [[ -n "${BENCH_BROKERS:-}" ]]; then echo "?"; return; fi
  find "$TOPICSNAP_KAFKA_DIR/data" -path "*/$1-[0-9]*/*.log" -printf '%s\n' | awk '{b += $1} END{printf "%.1f", b/1e6}'
}

RUN="$(date +%s)"
SRC="rsrc-$RUN"
log "producing $N records to $SRC ($PARTITIONS partitions, lz4)"
PRODUCE_LINE="$("$BENCH_DIR/bin/produce" --brokers "$BROKERS" --topic "$SRC" --create --partitions "$PARTITIONS" -n "$N")"
rm -rf "$BENCH_DIR/snap"
bin/topicsnap dump --brokers "$BROKERS" --topic "$SRC" --dir "$BENCH_DIR/snap" >/dev/null
"$BENCH_DIR/bin/restorefile" --dir "$BENCH_DIR/snap" --topic "$SRC" >"$BENCH_DIR/records.txt"
LINES="$(wc -l <"$BENCH_DIR/records.txt")"
[[ "$LINES" == "$N" ]] || die "records.txt has $LINES lines, expected $N"
BYTES="$(awk -F'\t' '{b += length($1) + length($2)} END {print b}' "$BENCH_DIR/records.txt")"
sync
sleep 3

OUT="$BENCH_DIR/out"
rm -rf "$OUT"
mkdir -p "$OUT"
declare -a ROWS=()
REPEAT="${BENCH_REPEAT:-1}"

# measure NAME TOPIC-PREFIX I CMD... : one run of CMD into TOPIC-PREFIX-RUN-I, a
# new target; @T@ in CMD is replaced by it. Run I = 0 is a warm-up: it is
# not measured, but it makes the broker's JIT and page cache as warm for
# the first measured run of each tool as for its last. The tools' runs
# alternate (restore, kcat, restore, kcat, ...), so neither gets the broker
# colder or warmer than the other. RUNS_OF[NAME] collects each run's
# fields; the table shows each tool's median run (by wall time).
declare -A RUNS_OF=()
measure() {
  local name="$1" prefix="$2" i="$3"
  shift 3
  local tf="$OUT/$name.time"
  local topic="$prefix-$RUN-$i" args=() a
  for a in "$@"; do args+=("${a//@T@/$topic}"); done
  if [[ "$name" == "kcat -P" ]]; then
    "$BENCH_DIR/bin/produce" --brokers "$BROKERS" --topic "$topic" --create --partitions "$PARTITIONS" -n 0 >/dev/null
  fi
  sync
  wait_quiet
  local warm=""
  [[ "$i" == 0 ]] && warm=" (warm-up, not counted)"
  log "running $name ($i/$REPEAT)$warm: ${args[*]}"
  local b0 b1 s0 s1 t0 t1
  b0="$(broker_cpu_ticks)"; s0="$(sys_busy_ticks)"; t0="$EPOCHREALTIME"
  /usr/bin/time -f '%e %M %U %S' -o "$tf" "${args[@]}" >"$OUT/$name.stdout" 2>"$OUT/$name.stderr" || { tail -n 20 "$OUT/$name.stderr" >&2; die "$name failed"; }
  t1="$EPOCHREALTIME"; s1="$(sys_busy_ticks)"; b1="$(broker_cpu_ticks)"
  local got wall rss u s cpu bcpu other mb
  got="$(count "$topic")"
  mb="$(topic_mb "$topic")"
  if [[ "$name" == topicsnap* ]]; then
    grep -q "^restored $N records" "$OUT/$name.stdout" || die "restore did not say it restored $N records: $(cat "$OUT/$name.stdout")"
    got="$N (markers make the offsets $got)"
  else
    [[ "$got" == "$N" ]] || die "$topic holds $got records, expected $N"
  fi
  wall="$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.3f", b-a}')"
  read -r _ rss u s <"$tf"
  cpu="$(awk -v u="$u" -v s="$s" 'BEGIN{printf "%.1f", u+s}')"
  bcpu="$(awk -v a="$b0" -v b="$b1" -v hz="$CLK_TCK" 'BEGIN{printf "%.1f", (b-a)/hz}')"
  other="$(awk -v a="$s0" -v b="$s1" -v hz="$CLK_TCK" -v c="$cpu" -v bc="$bcpu" 'BEGIN{o=(b-a)/hz-c-bc; if (o < 0) o = 0; printf "%.1f", o}')"
  log "$name: ${wall}s, peak RSS ${rss} KiB, cpu ${cpu}s, broker cpu ${bcpu}s, other ${other}s, $got records, target ${mb} MB$warm"
  [[ "$i" == 0 ]] && return 0
  RUNS_OF[$name]+="$name|$wall|$rss|$cpu|$bcpu|$other|$mb"$'\n'
  echo "$name|$wall|$rss|$cpu|$bcpu|$other|$mb|$got" >>"$OUT/runs.txt"
}
median_run() { printf '%s' "${RUNS_OF[$1]}" | sort -t'|' -k2,2g | sed -n "$(((REPEAT + 1) / 2))p"; }

LOAD0="$(cut -d' ' -f1-3 /proc/loadavg)"
for ((i = 0; i <= REPEAT; i++)); do
  # shellcheck disable=SC2086  # the ARGS are word lists on purpose
  measure "topicsnap restore" rdst "$i" bin/topicsnap restore --brokers "$BROKERS" --dir "$BENCH_DIR/snap" --topic "$SRC" --to-topic @T@ ${BENCH_RESTORE_ARGS:-}
  [[ "$i" == 0 ]] || RESTORE_LINE="$(tail -n 1 "$OUT/topicsnap restore.stdout")"
  if [[ -n "${BENCH_BASE_BIN:-}" ]]; then
    # shellcheck disable=SC2086
    measure "topicsnap restore (base)" bdst "$i" "$BENCH_BASE_BIN" restore --brokers "$BROKERS" --dir "$BENCH_DIR/snap" --topic "$SRC" --to-topic @T@ ${BENCH_BASE_ARGS-${BENCH_RESTORE_ARGS:-}}
  fi
  # shellcheck disable=SC2086
  measure "kcat -P" kdst "$i" "$KCAT" -P -b "$BROKERS" -t @T@ -K $'\t' ${BENCH_KCAT_ARGS:-} -l "$BENCH_DIR/records.txt"
done
ROWS=("$(median_run "topicsnap restore")")
[[ -z "${BENCH_BASE_BIN:-}" ]] || ROWS+=("$(median_run "topicsnap restore (base)")")
ROWS+=("$(median_run "kcat -P")")

KCAT_WALL="$(printf '%s\n' "${ROWS[@]}" | awk -F'|' '$1 == "kcat -P" {print $2}')"
{
  echo
  echo "### topicsnap restore vs kcat -P: $N records, $PARTITIONS partitions, median of $REPEAT alternated run(s) after a warm-up of each"
  echo
  echo "$(date -u +%Y-%m-%dT%H:%M:%SZ), $(nproc) cores, topicsnap at $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo "?")$(git -C "$ROOT" diff --quiet HEAD -- dump catalog cmd 2>/dev/null || echo "+local changes"), $("$KCAT" -V 2>/dev/null | sed -n 's/^Version \([^ ]*\).*librdkafka \([^ ]*\).*/kcat \1 (librdkafka \2)/p' | head -n 1), $(go version | awk '{print $3}'), key+value bytes $BYTES ($(awk -v b="$BYTES" -v n="$N" 'BEGIN{printf "%.0f", b/n}') B/record), source: $PRODUCE_LINE"
  echo
  echo "| tool | wall s | records/s | MB/s | vs kcat -P | tool CPU s | broker CPU s | other CPU s | peak RSS MiB | target topic MB |"
  echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
  for r in "${ROWS[@]}"; do
    IFS='|' read -r name wall rss cpu bcpu other mb <<<"$r"
    awk -v name="$name" -v wall="$wall" -v rss="$rss" -v cpu="$cpu" -v bcpu="$bcpu" -v other="$other" -v mb="$mb" -v n="$N" -v bytes="$BYTES" -v kw="$KCAT_WALL" 'BEGIN{
      printf "| %s | %.2f | %.0f | %.1f | %.2fx | %s | %s | %s | %.0f | %s |\n", name, wall, n/wall, bytes/wall/1e6, kw/wall, cpu, bcpu, other, rss/1024, mb }'
  done
  echo
  echo "Every run, in the order run (tool, wall s, CPU s, broker CPU s):"
  awk -F'|' '{printf "%s%s %s / %s / %s", (NR > 1 ? "; " : ""), $1, $2, $4, $5} END{print ""}' "$OUT/runs.txt"
  echo
  echo "topicsnap: $RESTORE_LINE${BENCH_RESTORE_ARGS:+; restore flags: $BENCH_RESTORE_ARGS}${BENCH_BASE_BIN:+; base: $BENCH_BASE_BIN${BENCH_BASE_ARGS:+ with $BENCH_BASE_ARGS}}${BENCH_KCAT_ARGS:+; kcat flags: $BENCH_KCAT_ARGS}"
  echo "Load average before and after: $LOAD0; $(cut -d' ' -f1-3 /proc/loadavg)."
} | tee "$BENCH_DIR/bench-restore.md"
