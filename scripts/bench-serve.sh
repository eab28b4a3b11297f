#!/usr/bin/env bash
# Benchmark `topicsnap serve` on loopback: cached report pages and the JSON
# API under load, and the server's memory while ad-hoc SQL clients run
# queries into the server's query timeout.
#
# Usage: scripts/bench-serve.sh
#
# It builds bin/topicsnap if missing (BENCH_BUILD=1: always), installs the
# load generator vegeta (github.com/tsenart/vegeta, a maintained one, from the
# Go module proxy, into $BENCH_DIR/bin), makes the tea shop's Monday with
# `topicsnap demo --users $USERS --serve=false` in $BENCH_DIR/serve-demo-$USERS
# (kept and reused on the next run), starts `bin/topicsnap serve` on
# 127.0.0.1:$PORT in the background (stopped on exit, whatever happens) and
# times the first, uncached request of each URL. Then:
#
#   (a) cached: $CONC workers for $CACHED_SECS s over the five URLs below
#       in turn, back to back (vegeta attack -rate 0 -max-workers $CONC):
#       overall and per-URL requests/s and latency, against the target
#       (>= $WANT_RPS req/s with p99 < $WANT_P99 and no errors);
#   (a') each URL alone, $CONC connections for $SOLO_SECS s (0 skips):
#       what each page costs on its own;
#   (b) SQL: $CONC clients POSTing $SQL_QUERY to /api/sql for $SQL_SECS s
#       (the server's query timeout is its default, 10 s: serve has no flag
#       for it), sampling the server's VmRSS every second: min/max/trend and
#       the status counts (408 is the server's timeout). Meanwhile a probe
#       paced at $PROBE_RATE req/s (0 skips) reads a cached API report, to
#       show what the SQL load does to everything else. After the run the
#       server's CPU over $IDLE_SECS quiet seconds tells whether timed-out
#       queries really stopped.
#
# vegeta's results are kept in $BENCH_DIR/bench-serve-*.bin (`vegeta report`
# reads them again); the tables are made from its JSON reports with jq.
#
# Everything is printed as markdown on stdout and kept in $BENCH_DIR/bench-serve.md
# (the RSS samples in $BENCH_DIR/bench-serve-rss.csv, the server log in
# $BENCH_DIR/bench-serve-server.log). The machine's load average is in every
# table's header: the numbers are only as good as the machine was quiet.
#
# Environment (all optional):
#   BENCH_DIR     work dir (default /tmp/topicsnap-bench)
#   USERS         users in the demo day (default 20000: ~74k events)
#   BENCH_FRESH=1 rebuild the demo folder even if it exists
#   BENCH_BUILD=1 rebuild bin/topicsnap even if it exists
#   PORT          server port on 127.0.0.1 (default 18080)
#   CONC          connections (default 16)
#   CACHED_SECS   length of the cached run (default 20)
#   SOLO_SECS     length of each single-URL run (default 10; 0 skips them)
#   SQL_SECS      length of the SQL run (default 60)
#   SQL_QUERY     the SQL (default SELECT count(*) FROM range(1000000000000):
#                 about 7 minutes of one core, so every client hits the timeout)
#   PROBE_RATE    requests/s of the cached probe during the SQL run (default 20; 0 skips)
#   IDLE_SECS     quiet seconds measured after the SQL run (default 5)
#   WANT_RPS      cached target, requests/s (default 2000)
#   WANT_P99      cached target, p99 latency (default 50ms)
#   QUIET_WAIT    before (a) and (b), wait up to this many seconds for the
#                 machine to be quiet: fewer than QUIET_BUSY busy cores
#                 (default 180; 0 skips the wait)
#   QUIET_BUSY    default 0.5
set -euo pipefail
# The server's format=arrow is duckdb-go's Arrow interface: its build tag.
GOFLAGS="$(${GO:-go} env GOFLAGS)"
[[ " ${GOFLAGS:-} " == *duckdb_arrow* ]] || export GOFLAGS="$("${GO:-go}" env GOFLAGS) -tags=duckdb_arrow"

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
BENCH_DIR="${BENCH_DIR:-/tmp/topicsnap-bench}"
USERS="${USERS:-20000}"
PORT="${PORT:-18080}"
CONC="${CONC:-16}"
CACHED_SECS="${CACHED_SECS:-20}"
SOLO_SECS="${SOLO_SECS:-10}"
SQL_SECS="${SQL_SECS:-60}"
SQL_QUERY="${SQL_QUERY:-SELECT count(*) FROM range(1000000000000)}"
PROBE_RATE="${PROBE_RATE:-20}"
IDLE_SECS="${IDLE_SECS:-5}"
WANT_RPS="${WANT_RPS:-2000}"
WANT_P99="${WANT_P99:-50ms}"
QUIET_WAIT="${QUIET_WAIT:-180}"
QUIET_BUSY="${QUIET_BUSY:-0.5}"
for v in USERS PORT CONC CACHED_SECS SOLO_SECS SQL_SECS PROBE_RATE IDLE_SECS WANT_RPS QUIET_WAIT; do
  [[ "${!v}" =~ ^[0-9]+$ ]] || { echo "bench-serve: $v must be a whole number, got ${!v}" >&2; exit 2; }
done

log() { echo "bench-serve: $*" >&2; }
die() { log "error: $*"; exit 1; }

# busy_cores: cores busy (not idle or iowait) over the next 2 seconds, from /proc/stat.
busy_cores() {
  local a b
  a="$(awk '/^cpu / { print $2+$3+$4+$5+$6+$7+$8+$9, $5+$6 }' /proc/stat)"
  sleep 2
  b="$(awk '/^cpu / { print $2+$3+$4+$5+$6+$7+$8+$9, $5+$6 }' /proc/stat)"
  awk -v a="$a" -v b="$b" -v n="$(nproc)" 'BEGIN { split(a, x, " "); split(b, y, " ");
    t = y[1] - x[1]; i = y[2] - x[2]; printf "%.2f", (t > 0 ? (t - i) / t * n : 0) }'
}

# wait_quiet: wait up to QUIET_WAIT seconds for fewer than QUIET_BUSY busy
# cores; says what it found either way (QUIET_NOTE, for the report).
QUIET_NOTE=""
wait_quiet() {
  local waited=0 busy
  while :; do
    busy="$(busy_cores)"
    if awk -v b="$busy" -v q="$QUIET_BUSY" 'BEGIN { exit !(b < q) }'; then
      QUIET_NOTE="other work used $busy cores just before (waited ${waited} s for a quiet machine)"
      return
    fi
    if (( waited >= QUIET_WAIT )); then
      QUIET_NOTE="**the machine was busy: other work used $busy cores just before** (waited ${waited} s)"
      log "warning: the machine stayed busy ($busy cores) for ${waited}s: measuring anyway"
      return
    fi
    (( waited == 0 )) && log "waiting up to ${QUIET_WAIT}s for a quiet machine (now $busy busy cores)"
    sleep 3
    waited=$((waited + 5))
  done
}

command -v go >/dev/null || die "go is required"
command -v curl >/dev/null || die "curl is required"
command -v jq >/dev/null || die "jq is required (apt-get install jq)"
[[ -x /usr/bin/time ]] || die "GNU time is required (apt-get install time)"
mkdir -p "$BENCH_DIR/bin"
OUT="$BENCH_DIR/bench-serve.md"
RSS_CSV="$BENCH_DIR/bench-serve-rss.csv"
SERVER_LOG="$BENCH_DIR/bench-serve-server.log"
BASE="http://127.0.0.1:$PORT"

# ------------------------------------------------------------- build

if [[ ! -x bin/topicsnap || "${BENCH_BUILD:-0}" == 1 ]]; then
  log "building bin/topicsnap"
  go build -o bin/topicsnap ./cmd/topicsnap || die "go build ./cmd/topicsnap failed"
fi
VEGETA_VERSION="${VEGETA_VERSION:-v12.13.0}"
VEGETA="$BENCH_DIR/bin/vegeta"
if [[ ! -x "$VEGETA" || "$(cat "$VEGETA.version" 2>/dev/null)" != "$VEGETA_VERSION" ]]; then
  log "installing the load generator vegeta $VEGETA_VERSION from the Go module proxy"
  GOBIN="$BENCH_DIR/bin" GOFLAGS=-mod=mod go install "github.com/tsenart/vegeta/v12@$VEGETA_VERSION" ||
    die "go install github.com/tsenart/vegeta/v12@$VEGETA_VERSION failed"
  echo "$VEGETA_VERSION" >"$VEGETA.version"
fi

# ------------------------------------------------------------- snapshot folder

SNAP="$BENCH_DIR/serve-demo-$USERS"
if [[ "${BENCH_FRESH:-0}" == 1 || ! -f "$SNAP/topicsnap.json" || ! -f "$SNAP/demo.out" ]]; then
  rm -rf "$SNAP"
  log "making the demo snapshot folder ($USERS users) in $SNAP"
  tmp_out="$(mktemp)"
  bin/topicsnap demo --dir "$SNAP" --users "$USERS" --serve=false >"$tmp_out" 2>&1 || { cat "$tmp_out" >&2; rm -f "$tmp_out"; die "topicsnap demo failed"; }
  mv "$tmp_out" "$SNAP/demo.out"
else
  log "reusing $SNAP (BENCH_FRESH=1 to rebuild)"
fi
EVENTS_LINE="$(grep -m1 '^produced' "$SNAP/demo.out" || true)"
SNAP_SIZE="$(du -sh "$SNAP" | cut -f1)"

# ------------------------------------------------------------- server

SERVER_PID=""
PROBE_PID=""
RSS_PID=""
cleanup() {
  local status=$?
  if [[ -n "$RSS_PID" ]]; then kill "$RSS_PID" 2>/dev/null || true; fi
  if [[ -n "$PROBE_PID" ]] && kill -0 "$PROBE_PID" 2>/dev/null; then
    kill "$PROBE_PID" 2>/dev/null || true
    wait "$PROBE_PID" 2>/dev/null || true
  fi
  if [[ -n "$SERVER_PID" ]] && kill -0 "$SERVER_PID" 2>/dev/null; then
    log "stopping the server (pid $SERVER_PID)"
    kill -INT "$SERVER_PID" 2>/dev/null || true
    for _ in $(seq 1 150); do
      kill -0 "$SERVER_PID" 2>/dev/null || break
      sleep 0.1
    done
    if kill -0 "$SERVER_PID" 2>/dev/null; then
      log "the server did not stop within 15 s of SIGINT: killing it"
      kill -KILL "$SERVER_PID" 2>/dev/null || true
    fi
    wait "$SERVER_PID" 2>/dev/null || true
  fi
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

if curl -s -o /dev/null --max-time 2 "$BASE/healthz"; then
  die "something already answers on 127.0.0.1:$PORT: stop it or set PORT"
fi
log "starting bin/topicsnap serve on 127.0.0.1:$PORT"
bin/topicsnap serve --dir "$SNAP" --addr "127.0.0.1:$PORT" >"$SERVER_LOG" 2>&1 &
SERVER_PID=$!
for i in $(seq 1 300); do
  curl -s -o /dev/null --max-time 1 "$BASE/healthz" && break
  kill -0 "$SERVER_PID" 2>/dev/null || { cat "$SERVER_LOG" >&2; die "the server exited"; }
  [[ $i == 300 ]] && die "the server did not answer /healthz within 30 s"
  sleep 0.1
done
# alive: the server must still be running after each step.
alive() { kill -0 "$SERVER_PID" 2>/dev/null || { tail -n 20 "$SERVER_LOG" >&2; die "the server exited during $1"; }; }
rss_mib() { awk '/^VmRSS:/ { printf "%.1f", $2 / 1024 }' "/proc/$SERVER_PID/status"; }
cpu_ticks() { awk '{ sub(/^.*\) /, ""); print $12 + $13 }' "/proc/$SERVER_PID/stat"; }
RSS_START="$(rss_mib)"

URLS=(
  "/"
  "/checks/gaps?topic=app_events"
  "/checks/skew?topic=app_events"
  "/api/checks/gaps?topic=app_events"
  "/api/checks/duplicates?topic=app_events&id=value.event_id"
)
TARGETS="$BENCH_DIR/bench-serve-targets.txt"
for u in "${URLS[@]}"; do echo "GET $BASE$u"; done >"$TARGETS"

# attack NAME TARGETS WORKERS SECS TIMEOUT [RATE]: vegeta's attack into
# $BENCH_DIR/bench-serve-NAME.bin, back to back (RATE 0, the default: each
# of WORKERS sends its next request when its last is answered) or paced at
# RATE requests/s. Sets ATTACK_CPU (vegeta's own CPU seconds) and
# SERVER_CORES (the server's CPU over the run, in cores).
attack() {
  local name="$1" targets="$2" workers="$3" secs="$4" timeout="$5" rate="${6:-0}" t0 t1 cpu
  local pace=(-rate 0 -max-workers "$workers" -workers "$workers")
  [[ "$rate" -gt 0 ]] && pace=(-rate "$rate/1s" -workers "$workers" -max-workers "$workers")
  t0="$(cpu_ticks)"
  /usr/bin/time -f "%U %S" -o "$BENCH_DIR/bench-serve-$name.time" \
    "$VEGETA" attack -targets "$targets" "${pace[@]}" -duration "${secs}s" -timeout "$timeout" \
      -keepalive=true -redirects -1 -name "$name" >"$BENCH_DIR/bench-serve-$name.bin"
  t1="$(cpu_ticks)"
  ATTACK_CPU="$(awk '{ printf "%.1f", $1 + $2 }' "$BENCH_DIR/bench-serve-$name.time")"
  SERVER_CORES="$(awk -v a="$t0" -v b="$t1" -v s="$secs" 'BEGIN { printf "%.2f", (b - a) / 100 / s }')"
}

# row LABEL NAME [URL]: one markdown row of vegeta's report of the results
# NAME (only those of URL if given): requests, req/s, latency quantiles in
# ms, and the answers that were not 2xx (by status; 0 is a transport error).
row() {
  local label="$1" name="$2" url="${3:-}"
  "$VEGETA" encode -to json "$BENCH_DIR/bench-serve-$name.bin" |
    { if [[ -n "$url" ]]; then jq -c --arg u "$url" 'select(.url == $u)'; else cat; fi; } |
    "$VEGETA" report -type json |
    jq -r --arg l "$label" '
      def ms: . / 1e6 | . * 100 | round / 100;
      ([.status_codes | to_entries[] | select(.key | test("^2") | not) | "\(.key): \(.value)"] | join(", ")) as $err
      | "| \($l) | \(.requests) | \(.rate | round) | \(.latencies["50th"] | ms) | \(.latencies["90th"] | ms) | \(.latencies["99th"] | ms) | \(.latencies.max | ms) | \(if $err == "" then "none" else $err end) |"'
}

# verdict NAME: met or missed against WANT_RPS and WANT_P99 (overall).
verdict() {
  "$VEGETA" report -type json "$BENCH_DIR/bench-serve-$1.bin" |
    jq -r --argjson rps "$WANT_RPS" --arg p99 "$WANT_P99" '
      ($p99 | capture("^(?<n>[0-9.]+)ms$").n | tonumber * 1e6) as $want
      | ([.status_codes | to_entries[] | select(.key | test("^2") | not) | .value] | add // 0) as $errs
      | if .rate >= $rps and .latencies["99th"] < $want and $errs == 0
        then "**met**" else "**missed**" end
      + " (target: >= \($rps) req/s with p99 < \($p99) and no errors)"'
}

# ------------------------------------------------------------- report header

exec > >(tee "$OUT")
COMMIT="$(git rev-parse --short HEAD 2>/dev/null || echo '?')"
DIRTY=""
[[ -n "$(git status --porcelain --untracked-files=no 2>/dev/null)" ]] && DIRTY=" (with uncommitted changes)"
echo "## topicsnap serve"
echo
echo "$(date -u '+%Y-%m-%d %H:%M UTC'), commit $COMMIT$DIRTY, $(go version | awk '{print $3}'),"\
" $(nproc) cores ($(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)), load average at start $(cut -d' ' -f1-3 /proc/loadavg)."
echo "Snapshot folder: topicsnap demo --users $USERS ($SNAP_SIZE${EVENTS_LINE:+; ${EVENTS_LINE#produced }})."
echo "Server: bin/topicsnap (built $(date -u -r bin/topicsnap '+%Y-%m-%d %H:%M UTC'); BENCH_BUILD=1 rebuilds it from this tree) serve on 127.0.0.1:$PORT, default options (query timeout 10 s, DuckDB 2 threads, 1 GB memory limit); RSS after start $RSS_START MiB."
echo "Load generator: vegeta $VEGETA_VERSION (from the Go module proxy) on the same machine; its CPU time is under each table."
echo

# ------------------------------------------------------------- warm-up

echo "### First (uncached) request of each URL"
echo
echo "| URL | status | seconds | bytes |"
echo "|---|---:|---:|---:|"
for u in "${URLS[@]}"; do
  read -r code secs size < <(curl -s -o /dev/null --max-time 120 -w '%{http_code} %{time_total} %{size_download}\n' "$BASE$u" || echo "000 0 0")
  echo "| \`$u\` | $code | $secs | $size |"
  [[ "$code" == 200 ]] || die "$u answered $code while warming the cache"
done
echo

# ------------------------------------------------------------- (a) cached

wait_quiet
echo "### (a) Cached report pages and API: $CONC connections, ${CACHED_SECS} s, the five URLs in turn"
echo
echo "Before the run $QUIET_NOTE."
echo
log "(a) cached pages: $CONC workers for ${CACHED_SECS}s (after a 2 s warm-up)"
attack warmup "$TARGETS" "$CONC" 2 10s
attack cached "$TARGETS" "$CONC" "$CACHED_SECS" 10s
alive "the cached run"
echo "| URL | requests | req/s | p50 ms | p90 ms | p99 ms | max ms | not 2xx |"
echo "|---|---:|---:|---:|---:|---:|---:|---|"
row "**all five**" cached
for u in "${URLS[@]}"; do row "\`$u\`" cached "$BASE$u"; done
echo
echo "Target: $(verdict cached). The server used $SERVER_CORES cores, vegeta $ATTACK_CPU CPU s; load average after: $(cut -d' ' -f1-3 /proc/loadavg)."
echo

if [[ "$SOLO_SECS" -gt 0 ]]; then
  echo "### (a') Each URL alone: $CONC workers, ${SOLO_SECS} s each"
  echo
  echo "| URL | requests | req/s | p50 ms | p90 ms | p99 ms | max ms | not 2xx | server cores | vegeta CPU s |"
  echo "|---|---:|---:|---:|---:|---:|---:|---|---:|---:|"
  i=0
  for u in "${URLS[@]}"; do
    log "(a') $u alone: $CONC workers for ${SOLO_SECS}s"
    echo "GET $BASE$u" >"$BENCH_DIR/bench-serve-solo.txt"
    attack "solo-$i" "$BENCH_DIR/bench-serve-solo.txt" "$CONC" "$SOLO_SECS" 10s
    alive "the run of $u"
    echo "$(row "\`$u\`" "solo-$i") $SERVER_CORES | $ATTACK_CPU |"
    i=$((i + 1))
  done
  echo
fi

# ------------------------------------------------------------- (b) SQL

wait_quiet
echo "### (b) Ad-hoc SQL past the timeout: $CONC clients, ${SQL_SECS} s"
echo
echo "Before the run $QUIET_NOTE."
echo
echo "Each client POSTs \`{\"sql\": \"$SQL_QUERY\", \"format\": \"json\"}\` to /api/sql back to back."
echo
RSS_BEFORE_SQL="$(rss_mib)"
printf '{"sql": "%s", "format": "json"}' "$SQL_QUERY" >"$BENCH_DIR/bench-serve-sql.json"
printf 'POST %s\nContent-Type: application/json\n@%s\n' "$BASE/api/sql" "$BENCH_DIR/bench-serve-sql.json" >"$BENCH_DIR/bench-serve-sql.txt"
echo "GET $BASE/api/checks/gaps?topic=app_events" >"$BENCH_DIR/bench-serve-probe.txt"
# The server's RSS, every second of the run.
echo "second,rss_mib" >"$RSS_CSV"
( for ((s = 1; s <= SQL_SECS; s++)); do sleep 1; echo "$s,$(rss_mib)" >>"$RSS_CSV"; done ) &
RSS_PID=$!
if [[ "$PROBE_RATE" -gt 0 ]]; then
  "$VEGETA" attack -targets "$BENCH_DIR/bench-serve-probe.txt" -rate "$PROBE_RATE/1s" -workers 2 -duration "${SQL_SECS}s" \
    -timeout 30s -name probe >"$BENCH_DIR/bench-serve-probe.bin" &
  PROBE_PID=$!
fi
log "(b) SQL: $CONC clients for ${SQL_SECS}s (each request ends at the 10 s timeout)"
attack sql "$BENCH_DIR/bench-serve-sql.txt" "$CONC" "$SQL_SECS" 60s
wait "$RSS_PID" 2>/dev/null || true
alive "the SQL run"
echo "| run | requests | req/s | p50 ms | p90 ms | p99 ms | max ms | not 2xx |"
echo "|---|---:|---:|---:|---:|---:|---:|---|"
row "SQL at the timeout" sql
if [[ -n "$PROBE_PID" ]]; then
  wait "$PROBE_PID" || log "warning: the probe failed"
  PROBE_PID=""
  row "probe: a cached API report, paced at $PROBE_RATE req/s" probe
fi
echo
awk -F, 'NR > 1 { n++; if (n == 1 || $2 < lo) lo = $2; if ($2 > hi) hi = $2; last = $2; if (n == 1) first = $2 }
  END { if (n) printf "Server RSS during the SQL run (%d samples): first %s, min %s, max %s, last %s MiB. The server used '"$SERVER_CORES"' cores, vegeta '"$ATTACK_CPU"' CPU s.\n", n, first, lo, hi, last }' "$RSS_CSV"
echo

# Timed-out queries must stop: the server should be idle now.
t0="$(cpu_ticks)"
sleep "$IDLE_SECS"
t1="$(cpu_ticks)"
IDLE_CORES="$(awk -v a="$t0" -v b="$t1" -v s="$IDLE_SECS" 'BEGIN { printf "%.2f", (b - a) / 100 / s }')"
RSS_AFTER="$(rss_mib)"
read -r code secs < <(curl -s -o /dev/null --max-time 30 -w '%{http_code} %{time_total}\n' "$BASE/" || echo "000 0")
echo "After the SQL run: the server used $IDLE_CORES cores over $IDLE_SECS quiet seconds (0 means the timed-out queries stopped);"
echo "RSS $RSS_BEFORE_SQL MiB before the run, $RSS_AFTER MiB ${IDLE_SECS} s after it; \`/\` then answered $code in $secs s."
echo "RSS samples: $RSS_CSV."
echo
echo "Load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)."
log "report written to $OUT"
