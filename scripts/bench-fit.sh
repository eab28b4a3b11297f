#!/usr/bin/env bash
# The cost of checking JSON values against their sampled structure
# (internal/jsonfit, json_fit): two builds of topicsnap alternated run by
# run on one topic of N small JSON events, medians of RUNS of wall and CPU
# (user+sys) time.
#
# Usage: scripts/bench-fit.sh BEFORE_BIN AFTER_BIN [N]     (default N 2000000)
#
# Environment: BENCH_DIR (default /tmp/topicsnap-bench-fit), RUNS (default 5).
# The topic (B, 4 partitions) is made once with `import --kcat` from lines
# awk writes, and reused while it holds N records.
set -euo pipefail
A="${1:?usage: $0 BEFORE_BIN AFTER_BIN [N]}"; B="${2:?usage: $0 BEFORE_BIN AFTER_BIN [N]}"; N="${3:-2000000}"
DIR="${BENCH_DIR:-/tmp/topicsnap-bench-fit}"; RUNS="${RUNS:-5}"
mkdir -p "$DIR"
if [[ "$(cat "$DIR/n" 2>/dev/null)" != "$N" ]]; then
  rm -rf "$DIR/snap" "$DIR/n"
  awk -v n="$N" 'BEGIN { for (i = 0; i < n; i++) {
    v = sprintf("{\\\"event_id\\\":\\\"e-%d\\\",\\\"n\\\":%d,\\\"amount\\\":%d.25,\\\"ok\\\":%s,\\\"ts\\\":\\\"2024-01-01T00:%02d:%02dZ\\\",\\\"tags\\\":[\\\"a\\\",\\\"b\\\"],\\\"o\\\":{\\\"k\\\":%d}}",
      i, i, i % 1000, (i % 2 ? "true" : "false"), int(i / 60) % 60, i % 60, i % 7)
    printf "{\"topic\":\"B\",\"partition\":%d,\"offset\":%d,\"tstype\":\"create\",\"ts\":%d,\"key\":\"k%d\",\"payload\":\"%s\"}\n", i % 4, int(i / 4), 1700000000000 + i, i % 1000, v } }' > "$DIR/events.jsonl"
  "$B" import --kcat "$DIR/events.jsonl" --topic B --dir "$DIR/snap" >&2
  rm -f "$DIR/events.jsonl"
  echo "$N" > "$DIR/n"
fi
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
echo "| what | before wall s | now wall s | before CPU s | now CPU s |"
echo "|---|---:|---:|---:|---:|"
while IFS='|' read -r kind text; do
  : > "$DIR/t.a"; : > "$DIR/t.b"
  for _ in $(seq "$RUNS"); do
    for side in a b; do
      bin="$A"; [[ $side == b ]] && bin="$B"
      if [[ $kind == sql ]]; then
        /usr/bin/time -f "%e %U %S" -o "$DIR/one" "$bin" sql --dir "$DIR/snap" --format csv -c "$text" > "$DIR/out.$side"
      else
        # shellcheck disable=SC2086 # the check's name and options, split
        /usr/bin/time -f "%e %U %S" -o "$DIR/one" "$bin" check $text --dir "$DIR/snap" --topic B > "$DIR/out.$side" || true
      fi
      tail -1 "$DIR/one" >> "$DIR/t.$side"
    done
  done
  cmp -s "$DIR/out.a" "$DIR/out.b" || [[ $kind == check ]] || echo "warning: the answers of $text differ" >&2
  echo "| $kind \`$text\` | $(awk '{print $1}' "$DIR/t.a" | median) | $(awk '{print $1}' "$DIR/t.b" | median) | $(awk '{print $2+$3}' "$DIR/t.a" | median) | $(awk '{print $2+$3}' "$DIR/t.b" | median) |"
done <<'Q'
sql|SELECT sum(value.n) FROM B
sql|SELECT sum(value.n), count(DISTINCT value.event_id) FROM B
sql|SELECT count(*) FROM B WHERE value_error IS NULL
sql|SELECT max(value.o.k), count(value) FROM B
check|values
check|duplicates --id value.event_id
Q
uptime >&2
