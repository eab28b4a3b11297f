#!/usr/bin/env bash
# Benchmark `topicsnap dump` against kcat and a bare franz-go consumer on the
# same data, in one run.
#
# Usage: scripts/bench-dump.sh [N]        (N records, default 5000000)
#
# It installs what it needs if missing (kcat, GNU time), builds bin/topicsnap
# and the bench tools, starts a separate Kafka broker for benchmarks (its own
# state dir and ports, so the test broker on 39092 is not disturbed), creates
# topic `bench` (6 partitions, retention.ms=-1), produces N JSON events of
# ~200 bytes (scripts/benchtools/produce, lz4 batches, timestamps now), then
# reads the whole topic with:
#   bare       scripts/benchtools/bareconsume: direct assignment, read to the
#              high watermark, discard (the client-side ceiling)
#   topicsnap  bin/topicsnap dump --topic bench --dir $BENCH_DIR/snap (fresh)
#   kcat -J    kcat -C -e -o beginning -J > file
#   kcat -f    kcat -C -e -o beginning -f '%k %s\n' > file
# and prints one markdown table: wall time, records/s, MB/s (key+value bytes,
# 10^6 B), CPU time of the tool, CPU time the broker spent meanwhile, peak RSS
# (/usr/bin/time %M), bytes on disk (du -sb), and the CPU time used by
# everything else on the machine meanwhile (noise). Before each timed run it
# waits for the machine to be idle (see wait_quiet). It checks every tool read
# exactly N records (topicsnap via `topicsnap sql ... count(*)`).
#
# The snapshot stays in $BENCH_DIR/snap for scripts/bench-sql.sh.
#
# Environment (all optional):
#   BENCH_DIR             work dir (default /tmp/topicsnap-bench)
#   BENCH_KEEP_BROKER=1   leave the broker running (default: stop it at exit)
#   BENCH_REUSE_TOPIC=1   skip starting/producing if the broker is up and
#                         `bench` already holds N records
#   BENCH_REPEAT          runs per tool (default 1); the table shows the run
#                         with the median wall time (all runs: $BENCH_DIR/out/runs.txt)
#   BENCH_TOOLS           which to run besides bare (always run: it counts the
#                         bytes); default "topicsnap kcat-J kcat-f"
#   BENCH_SKIP_KCAT_F=1   skip the kcat -f run
#   BENCH_KEEP_OUTPUTS=1  keep kcat's output files (they are large)
#   BENCH_DUMP_ARGS       extra flags for topicsnap dump (e.g. "--file-bytes 16777216")
#   BENCH_DUMP_ENV        environment for topicsnap dump only (e.g. "GOMEMLIMIT=400MiB")
#   BENCH_BARE_ARGS       extra flags for bareconsume (e.g. "--fetch-max-bytes 8388608")
#   BENCH_COMPRESSION     producer batch compression (default lz4)
#   BENCH_NO_BUILD=1      use the existing bin/topicsnap as is
#   BENCH_QUIET_WAIT      seconds to wait for an idle machine before each run (600)
#   BENCH_QUIET_BUSY      "idle" means fewer busy cores than this (0.25)
#   TOPICSNAP_KAFKA_*     see scripts/kafka.sh; defaults here: dir
#                         /tmp/topicsnap-kafka-bench, ports 39192/39193/39194/39195,
#                         heap -Xms1g -Xmx1g
set -euo pipefail
# The server's format=arrow is duckdb-go's Arrow interface: its build tag.
GOFLAGS="$(${GO:-go} env GOFLAGS)"
[[ " ${GOFLAGS:-} " == *duckdb_arrow* ]] || export GOFLAGS="$("${GO:-go}" env GOFLAGS) -tags=duckdb_arrow"

N="${1:-5000000}"
[[ "$N" =~ ^[0-9]+$ && "$N" -gt 0 ]] || { echo "usage: $0 [N]" >&2; exit 2; }

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
BENCH_DIR="${BENCH_DIR:-/tmp/topicsnap-bench}"
TOPIC=bench
PARTITIONS=6
export TOPICSNAP_KAFKA_DIR="${TOPICSNAP_KAFKA_DIR:-/tmp/topicsnap-kafka-bench}"
export TOPICSNAP_KAFKA_PORT="${TOPICSNAP_KAFKA_PORT:-39192}"
export TOPICSNAP_KAFKA_SASL_PORT="${TOPICSNAP_KAFKA_SASL_PORT:-39193}"
export TOPICSNAP_KAFKA_CONTROLLER_PORT="${TOPICSNAP_KAFKA_CONTROLLER_PORT:-39194}"
export TOPICSNAP_KAFKA_SSL_PORT="${TOPICSNAP_KAFKA_SSL_PORT:-39195}"
export TOPICSNAP_KAFKA_HEAP="${TOPICSNAP_KAFKA_HEAP:--Xms1g -Xmx1g}"
BROKERS="127.0.0.1:$TOPICSNAP_KAFKA_PORT"

log() { echo "bench-dump: $*" >&2; }
die() { log "error: $*"; exit 1; }
# shellcheck source=bench-lib.sh
source "$ROOT/scripts/bench-lib.sh"

# ------------------------------------------------------------- prerequisites

APT_UPDATED=0
apt_install() {
  command -v apt-get >/dev/null || die "need $* but apt-get is not available"
  if [[ $APT_UPDATED -eq 0 ]]; then
    log "apt-get update"
    apt-get update -qq >/dev/null || die "apt-get update failed"
    APT_UPDATED=1
  fi
  log "apt-get install -y $*"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null || die "apt-get install $* failed"
}
command -v kcat >/dev/null || apt_install kcat
[[ -x /usr/bin/time ]] || apt_install time
command -v go >/dev/null || die "go is required"
command -v du >/dev/null && command -v awk >/dev/null || die "need du and awk"

mkdir -p "$BENCH_DIR/bin"
if [[ "${BENCH_NO_BUILD:-0}" != 1 ]]; then
  log "building bin/topicsnap"
  if ! go build -o bin/topicsnap ./cmd/topicsnap; then
    [[ -x bin/topicsnap ]] || die "go build ./cmd/topicsnap failed (another change in progress? retry in a few minutes)"
    log "warning: go build failed; using the existing bin/topicsnap"
  fi
fi
[[ -x bin/topicsnap ]] || die "bin/topicsnap missing"
log "building bench tools"
go build -o "$BENCH_DIR/bin/produce" ./scripts/benchtools/produce
go build -o "$BENCH_DIR/bin/bareconsume" ./scripts/benchtools/bareconsume

# ------------------------------------------------------------- broker + data

stop_broker() {
  if [[ "${BENCH_KEEP_BROKER:-0}" != 1 ]]; then
    scripts/kafka.sh stop || true
  fi
}

topic_records() {
  # Sum of high watermarks of $TOPIC (0 if it does not exist).
  "$BENCH_DIR/bin/bareconsume" --brokers "$BROKERS" --topic "$TOPIC" --count-only 2>/dev/null || echo 0
}

reuse=0
if [[ "${BENCH_REUSE_TOPIC:-0}" == 1 ]] && scripts/kafka.sh status >/dev/null 2>&1; then
  have="$(topic_records)"
  if [[ "$have" == "$N" ]]; then
    reuse=1
    log "reusing topic $TOPIC with $N records on the running broker"
  fi
fi
trap stop_broker EXIT
PRODUCE_LINE="(reused)"
if [[ $reuse -eq 0 ]]; then
  log "starting the bench broker ($TOPICSNAP_KAFKA_DIR, $BROKERS)"
  scripts/kafka.sh start >"$BENCH_DIR/kafka.env"
  log "producing $N records to $TOPIC ($PARTITIONS partitions, ${BENCH_COMPRESSION:-lz4})"
  PRODUCE_LINE="$("$BENCH_DIR/bin/produce" --brokers "$BROKERS" --topic "$TOPIC" --create \
    --partitions "$PARTITIONS" -n "$N" --compression "${BENCH_COMPRESSION:-lz4}")"
  log "produce: $PRODUCE_LINE"
  have="$(topic_records)"
  [[ "$have" == "$N" ]] || die "topic $TOPIC holds $have records, expected $N"
fi
BROKER_PID="$(cat "$TOPICSNAP_KAFKA_DIR/kafka.pid")"
broker_cpu_ticks() { awk '{print $14 + $15}' "/proc/$BROKER_PID/stat"; }

# Let the broker settle (log flushes, segment rolls) before timing.
sync
sleep 3

# ------------------------------------------------------------- measurements

OUT="$BENCH_DIR/out"
rm -rf "$OUT"
mkdir -p "$OUT"
declare -a ROWS=()

REPEAT="${BENCH_REPEAT:-1}"
[[ "$REPEAT" =~ ^[1-9][0-9]*$ ]] || die "BENCH_REPEAT must be a positive number"

# measure NAME OUTPUT_PATH_OR_- CMD... : runs CMD $REPEAT times (OUTPUT is
# removed before each run, so every run starts fresh) and keeps the run with
# the median wall time. stdout of CMD goes to $OUT/NAME.stdout.
measure() {
  local name="$1" output="$2"
  shift 2
  local tf="$OUT/$name.time" b0 b1 t0 t1 s0 s1 i runs=()
  for ((i = 1; i <= REPEAT; i++)); do
    [[ "$output" != - ]] && rm -rf "$output"
    sync
    wait_quiet
    log "running $name ($i/$REPEAT): $*"
    b0="$(broker_cpu_ticks)"
    s0="$(sys_busy_ticks)"
    t0="$EPOCHREALTIME"
    if ! /usr/bin/time -f '%e %M %U %S' -o "$tf" "$@" >"$OUT/$name.stdout" 2>"$OUT/$name.stderr"; then
      tail -n 20 "$OUT/$name.stderr" >&2
      die "$name failed"
    fi
    t1="$EPOCHREALTIME"
    s1="$(sys_busy_ticks)"
    b1="$(broker_cpu_ticks)"
    local wall rss cpu disk=0 u s
    wall="$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.3f", b-a}')"
    read -r _ rss u s <"$tf"
    cpu="$(awk -v u="$u" -v s="$s" 'BEGIN{printf "%.1f", u+s}')"
    if [[ "$output" != - ]]; then
      disk="$(du -sb "$output" | awk '{print $1}')"
    fi
    local bcpu other
    bcpu="$(awk -v a="$b0" -v b="$b1" -v hz="$CLK_TCK" 'BEGIN{printf "%.1f", (b-a)/hz}')"
    # Busy CPU time of everything else on the machine meanwhile (noise).
    other="$(awk -v a="$s0" -v b="$s1" -v hz="$CLK_TCK" -v c="$cpu" -v bc="$bcpu" 'BEGIN{o=(b-a)/hz-c-bc; if (o < 0) o = 0; printf "%.1f", o}')"
    runs+=("$name|$wall|$rss|$cpu|$bcpu|$disk|$other")
    echo "$name|$wall|$rss|$cpu|$bcpu|$disk|$other" >>"$OUT/runs.txt"
    log "$name: ${wall}s, peak RSS ${rss} KiB, cpu ${cpu}s, broker cpu ${bcpu}s, other cpu ${other}s, disk ${disk} B"
  done
  # The median run by wall time (the lower middle one for an even count).
  ROWS+=("$(printf '%s\n' "${runs[@]}" | sort -t'|' -k2,2g | sed -n "$(((REPEAT + 1) / 2))p")")
}

# shellcheck disable=SC2086  # BENCH_BARE_ARGS is a word list on purpose
measure bare - "$BENCH_DIR/bin/bareconsume" --brokers "$BROKERS" --topic "$TOPIC" ${BENCH_BARE_ARGS:-}
BARE_LINE="$(cat "$OUT/bare.stdout")"
BARE_RECORDS="$(sed -n 's/.*records=\([0-9]*\).*/\1/p' <<<"$BARE_LINE")"
BYTES="$(sed -n 's/.*bytes=\([0-9]*\).*/\1/p' <<<"$BARE_LINE")"
[[ "$BARE_RECORDS" == "$N" ]] || die "bareconsume read $BARE_RECORDS records, expected $N"

TOOLS=" ${BENCH_TOOLS:-topicsnap kcat-J kcat-f} "
[[ "${BENCH_SKIP_KCAT_F:-0}" == 1 ]] && TOOLS="${TOOLS/ kcat-f / }"
DUMP_LINE="(not run)"
DUMPED="-"
if [[ "$TOOLS" == *" topicsnap "* ]]; then
  rm -rf "$BENCH_DIR/snap" "$BENCH_DIR/snap.records"
  # Each repeat dumps into a fresh $BENCH_DIR/snap (measure removes it first).
  # shellcheck disable=SC2086  # BENCH_DUMP_ENV and BENCH_DUMP_ARGS are word lists on purpose
  measure topicsnap "$BENCH_DIR/snap" env ${BENCH_DUMP_ENV:-} bin/topicsnap dump --brokers "$BROKERS" --topic "$TOPIC" \
    --dir "$BENCH_DIR/snap" ${BENCH_DUMP_ARGS:-}
  DUMP_LINE="$(tail -n 1 "$OUT/topicsnap.stdout")"
  log "topicsnap: $DUMP_LINE"
  DUMPED="$(bin/topicsnap sql --dir "$BENCH_DIR/snap" -c "SELECT count(*) FROM $TOPIC" --format csv | tail -n 1 | tr -d '\r')"
  [[ "$DUMPED" == "$N" ]] || die "topicsnap dumped $DUMPED records, expected $N"
  echo "$N" >"$BENCH_DIR/snap.records"
fi

if [[ "$TOOLS" == *" kcat-J "* ]]; then
  measure "kcat -J" "$OUT/kcat-J.json" sh -c "exec kcat -C -b '$BROKERS' -t '$TOPIC' -e -o beginning -q -J > '$OUT/kcat-J.json'"
  KCAT_J_LINES="$(wc -l <"$OUT/kcat-J.json")"
  [[ "$KCAT_J_LINES" == "$N" ]] || die "kcat -J wrote $KCAT_J_LINES lines, expected $N"
  [[ "${BENCH_KEEP_OUTPUTS:-0}" == 1 ]] || rm -f "$OUT/kcat-J.json"
fi

if [[ "$TOOLS" == *" kcat-f "* ]]; then
  measure "kcat -f" "$OUT/kcat-f.txt" sh -c "exec kcat -C -b '$BROKERS' -t '$TOPIC' -e -o beginning -q -f '%k %s\n' > '$OUT/kcat-f.txt'"
  KCAT_F_LINES="$(wc -l <"$OUT/kcat-f.txt")"
  [[ "$KCAT_F_LINES" == "$N" ]] || die "kcat -f wrote $KCAT_F_LINES lines, expected $N"
  [[ "${BENCH_KEEP_OUTPUTS:-0}" == 1 ]] || rm -f "$OUT/kcat-f.txt"
fi

# ------------------------------------------------------------- report

wall_of() {
  local r
  for r in "${ROWS[@]}"; do
    [[ "${r%%|*}" == "$1" ]] && { cut -d'|' -f2 <<<"$r"; return 0; }
  done
  return 0
}
KCAT_WALL="$(wall_of "kcat -J")"
BARE_WALL="$(wall_of bare)"

{
  echo
  echo "### topicsnap dump vs kcat vs bare franz-go: $N records, $PARTITIONS partitions, median of $REPEAT run(s)"
  echo
  echo "$(date -u +%Y-%m-%dT%H:%M:%SZ), $(nproc) cores, topicsnap at $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo "?")$(git -C "$ROOT" diff --quiet HEAD -- dump catalog queries cmd 2>/dev/null || echo "+local changes"), kcat $(kcat -V 2>/dev/null | sed -n 's/^Version \([^ ]*\).*librdkafka \([^ ]*\).*/\1 (librdkafka \2)/p' | head -n 1), $(go version | awk '{print $3}'), key+value bytes $BYTES ($(awk -v b="$BYTES" -v n="$N" 'BEGIN{printf "%.0f", b/n}') B/record), produce: $PRODUCE_LINE"
  echo
  echo "| tool | wall s | records/s | MB/s | vs kcat -J | vs bare | tool CPU s | broker CPU s | other CPU s | peak RSS MiB | on disk |"
  echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
  for r in "${ROWS[@]}"; do
    IFS='|' read -r name wall rss cpu bcpu disk other <<<"$r"
    awk -v name="$name" -v wall="$wall" -v rss="$rss" -v cpu="$cpu" -v bcpu="$bcpu" -v disk="$disk" -v other="$other" \
        -v n="$N" -v bytes="$BYTES" -v kw="$KCAT_WALL" -v bw="$BARE_WALL" 'BEGIN{
      d = (disk == 0) ? "-" : (disk >= 1e9 ? sprintf("%.2f GB", disk/1e9) : sprintf("%.1f MB", disk/1e6))
      vk = (kw == "") ? "-" : sprintf("%.2fx", kw/wall)
      printf "| %s | %.2f | %.0f | %.1f | %s | %.0f%% | %s | %s | %s | %.0f | %s |\n",
        name, wall, n/wall, bytes/wall/1e6, vk, 100*bw/wall, cpu, bcpu, other, rss/1024, d }'
  done
  echo
  echo "topicsnap: $DUMP_LINE; verified count(*) = $DUMPED${BENCH_DUMP_ARGS:+; dump flags: $BENCH_DUMP_ARGS}${BENCH_DUMP_ENV:+; dump env: $BENCH_DUMP_ENV}"
  echo "bare: $BARE_LINE"
  echo "other CPU s: CPU time used by everything else on the machine during the run (noise; ideally ~0)."
} | tee "$BENCH_DIR/bench-dump.md"
