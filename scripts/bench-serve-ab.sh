#!/usr/bin/env bash
# A/B of serve's cached API reports alone: base and new builds alternated.
# Usage: scripts/bench-serve-ab.sh BASE_BIN NEW_BIN SNAP [PAIRS]
# SNAP: a folder made by `topicsnap demo --users 20000 --serve=false` (bench-serve.sh
# keeps one in $BENCH_DIR/serve-demo-20000). Needs vegeta (VEGETA, default: the one
# bench-serve.sh installs in /tmp/topicsnap-bench/bin) and jq. Each build serves SNAP in
# turn; each URL is warmed, then attacked alone by 16 workers for 8 s; the line gives
# req/s, p99 and the front process's CPU per request (utime+stime from /proc).
set -u
BASEBIN=$1; NEWBIN=$2; SNAP=$3; PAIRS=${4:-4}
V=${VEGETA:-/tmp/topicsnap-bench/bin/vegeta}
PORT=18397; B="http://127.0.0.1:$PORT"
URLS=("/api/checks/gaps?topic=app_events" "/api/checks/duplicates?topic=app_events&id=value.event_id" "/")
one() { # who bin
  local who=$1 bin=$2
  $bin serve --dir "$SNAP" --addr "127.0.0.1:$PORT" >/tmp/serve-ab-$who.log 2>&1 &
  local pid=$!
  for i in $(seq 1 300); do curl -s -o /dev/null --max-time 1 "$B/healthz" && break; sleep 0.1; done
  for u in "${URLS[@]}"; do curl -s -o /dev/null --max-time 60 "$B$u"; curl -s -o /dev/null "$B$u"; done
  sleep 2
  local line="$who load=$(cut -d' ' -f1 /proc/loadavg)"
  for u in "${URLS[@]}"; do
    local t0=$(awk '{print $14+$15}' /proc/$pid/stat)
    r=$(echo "GET $B$u" | $V attack -rate 0 -max-workers 16 -duration 8s -timeout 10s | $V report -type json)
    local t1=$(awk '{print $14+$15}' /proc/$pid/stat)
    rps=$(echo "$r" | jq '.throughput|floor'); n=$(echo "$r" | jq '.requests'); p99=$(echo "$r" | jq '.latencies["99th"]/1e6|.*100|floor/100'); ok=$(echo "$r" | jq '.success')
    cpu=$(awk -v a=$t0 -v b=$t1 -v n=$n 'BEGIN{printf "%.3f", (b-a)*10/n}')
    line="$line | ${u%%\?*} rps=$rps p99=${p99}ms ok=$ok cpu_ms_per_req=$cpu"
  done
  echo "$line"
  kill $pid; wait $pid 2>/dev/null
}
for p in $(seq 1 $PAIRS); do
  if (( p % 2 )); then one base $BASEBIN; one new $NEWBIN; else one new $NEWBIN; one base $BASEBIN; fi
done
