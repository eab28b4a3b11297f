#!/usr/bin/env bash
# Compare two builds of topicsnap on the same snapshot, run by run
# interleaved (A, B, A, B, ...), median of RUNS: every check, and the SQL
# rows of bench-sql. For "speed stays" claims: B against the code before.
#
# Usage: scripts/bench-ab.sh BIN_A BIN_B
#   BIN_A, BIN_B  two topicsnap binaries (e.g. one built from `git worktree add
#                 /tmp/base COMMIT` and bin/topicsnap)
# Environment: SNAP (default /tmp/topicsnap-ab-5m, made by
#   scripts/benchtools/mksnap with N records when missing), N (5000000), RUNS (5).
set -euo pipefail
# The server's format=arrow is duckdb-go's Arrow interface: its build tag.
GOFLAGS="$(${GO:-go} env GOFLAGS)"
[[ " ${GOFLAGS:-} " == *duckdb_arrow* ]] || export GOFLAGS="$("${GO:-go}" env GOFLAGS) -tags=duckdb_arrow"
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
A=${1:?usage: bench-ab.sh BIN_A BIN_B}; B=${2:?usage: bench-ab.sh BIN_A BIN_B}
SNAP=${SNAP:-/tmp/topicsnap-ab-5m}; N=${N:-5000000}; RUNS=${RUNS:-5}
[ -f "$SNAP/topicsnap.json" ] || (cd "$ROOT" && go run ./scripts/benchtools/mksnap "$SNAP" "$N")
t() { local s e; s=$(date +%s.%N); "$@" >/dev/null 2>&1 || [ $? -eq 1 ]; e=$(date +%s.%N); awk -v a="$s" -v b="$e" 'BEGIN{printf "%.3f\n", b-a}'; }
med() { sort -n | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}'; }
run() {
  local label=$1; shift
  local xa=() xb=() i
  for ((i = 0; i < RUNS; i++)); do xa+=("$(t "$A" "$@")"); xb+=("$(t "$B" "$@")"); done
  local a b; a=$(printf '%s\n' "${xa[@]}" | med); b=$(printf '%s\n' "${xb[@]}" | med)
  echo "| $label | $a | $b | $(awk -v a="$a" -v b="$b" 'BEGIN{printf "%.2f", b/a}') |"
}
echo "$(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $SNAP, median of $RUNS interleaved runs"
echo
echo "| what | A s | B s | B/A |"
echo "|---|---:|---:|---:|"
for c in gaps duplicates skew keys order freshness lag; do
  args=(check "$c" --dir "$SNAP" --topic bench --format json)
  [ "$c" = duplicates ] && args+=(--id value.event_id)
  run "check $c" "${args[@]}"
done
run "sql SELECT 1" sql --dir "$SNAP" -c "SELECT 1" --format csv
run "sql count(*)" sql --dir "$SNAP" -c "SELECT count(*) FROM bench" --format csv
run "sql gap scan" sql --dir "$SNAP" -c 'SELECT "partition", count(*) FROM (SELECT "partition", "offset", lead("offset") OVER (PARTITION BY "partition" ORDER BY "offset") AS nx FROM bench) WHERE nx <> "offset" + 1 GROUP BY 1' --format csv
run "sql count(DISTINCT value.event_id)" sql --dir "$SNAP" -c "SELECT count(DISTINCT value.event_id) FROM bench" --format csv
