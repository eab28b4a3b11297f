#!/usr/bin/env bash
# One table from the tables `make bench` left in $BENCH_DIR: the dump against
# kcat and the bare consume loop, SQL against the DuckDB CLI, the gap and
# duplicate checks against hand-written DuckDB, and the server. Each row is
# topicsnap's figure, the peer's, and the target from the issues.
#
# Usage: scripts/bench-summary.sh   (after bench-dump, bench-sql, bench-checks, bench-serve)
set -euo pipefail
BENCH_DIR="${BENCH_DIR:-/tmp/topicsnap-bench}"
dump="$BENCH_DIR/bench-dump.md" sql="$BENCH_DIR/bench-sql.md"
checks="$BENCH_DIR/bench-checks.md" serve="$BENCH_DIR/bench-serve.md"

# cell FILE ROW-PATTERN COLUMN: the COLUMN-th cell (1-based) of the first
# table row whose first cell matches ROW-PATTERN.
cell() {
  [[ -f "$1" ]] || { echo "-"; return; }
  awk -F'|' -v pat="$2" -v c="$3" '
    /^\|/ { name = $2; gsub(/^ +| +$|[*][*]/, "", name); if (name ~ pat) { v = $(c + 1); gsub(/^ +| +$|[*][*]/, "", v); print v; exit } }' "$1"
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN{ if (a+0 > 0 && b+0 > 0) printf "%.2fx", a/b; else print "-" }'; }
meets() { awk -v v="$1" -v op="$2" -v t="$3" 'BEGIN{ if (v !~ /^[0-9.]+$/) { print "-"; exit } v += 0; ok = (op == "<=") ? v <= t : v >= t; print (ok ? "met" : "**missed**") }'; }
num() { tr -d ',%x' <<<"$1"; }

echo "### make bench: one table ($(nproc) cores, $(date -u +%Y-%m-%dT%H:%MZ), $(git rev-parse --short HEAD 2>/dev/null || echo '?'))"
echo
echo "| measure | topicsnap | peer | topicsnap vs peer | target | |"
echo "|---|---:|---:|---:|---|---|"

t="$(cell "$dump" '^topicsnap' 3)" k="$(cell "$dump" '^kcat -J' 3)" b="$(cell "$dump" '^bare' 3)"
r="$(ratio "$(num "$t")" "$(num "$k")")"
echo "| dump records/s (5M × ~200 B) | $t | kcat -J $k | $r | ≥ 3x kcat -J | $(meets "${r%x}" '>=' 3) |"
r="$(ratio "$(num "$t")" "$(num "$b")")"
echo "| dump records/s vs the bare consume loop | $t | bare $b | $r | ≥ 0.40x | $(meets "${r%x}" '>=' 0.40) |"
m="$(cell "$dump" '^topicsnap' 10)"
echo "| dump peak RSS MiB | $m | | | < 512 | $(meets "$m" '<=' 511.99) |"

for q in 'SELECT 1' 'count[(][*][)]' 'gap scan' 'count[(]DISTINCT event_id[)]$' 'raw bytes'; do
  name="$(awk -F'|' -v pat="$q" '/^\|/ { n = $2; gsub(/^ +| +$/, "", n); if (n ~ pat) { print n; exit } }' "$sql" 2>/dev/null || true)"
  [[ -n "$name" ]] || continue
  a="$(cell "$sql" "$q" 2)" d="$(cell "$sql" "$q" 3)" r="$(cell "$sql" "$q" 4)"
  echo "| sql: $name (s) | $a | DuckDB CLI $d | ${r}x | within 1.10x | $(meets "$r" '<=' 1.10) |"
done

for c in gaps duplicates; do
  a="$(cell "$checks" "^$c\$" 2)" h="$(cell "$checks" "^$c\$" 3)" r="$(cell "$checks" "^$c\$" 4)"
  echo "| check $c (s) | $a | hand-written DuckDB $h | ${r}x | within 1.5x | $(meets "$r" '<=' 1.5) |"
done
for c in skew keys order freshness lag; do
  echo "| check $c (s) | $(cell "$checks" "^$c\$" 2) | | | measured | |"
done

rps="$(cell "$serve" '^all$' 3)" p99="$(cell "$serve" '^all$' 6)"
echo "| serve: cached pages req/s (p99 ms) | $rps ($p99) | | | ≥ 2000 with p99 < 50 ms | $(meets "$rps" '>=' 2000) |"
