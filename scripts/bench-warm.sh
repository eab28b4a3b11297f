#!/usr/bin/env bash
# How long `topicsnap serve` (its defaults: 2 query workers) takes to know
# every tile of the overview of a whole cluster's folder, and what that
# costs in CPU: the server is started on a folder of TOPICS × PARTITIONS
# (scripts/benchtools/mkcluster, as bench-folder.sh writes it), and `/` is
# fetched every 5 s, as an open browser tab reloads it, until five views in
# a row have no pending tile on page 1 and no other page's tile still
# being computed (the views go to either worker, so both then know every
# tile). Then the CPU the front and its workers used (user + system, from
# /proc) is read and the server stopped.
#
#   scripts/bench-warm.sh [TOPICS] [PARTITIONS]      (default 1000 12)
#
# Environment: BENCH_DIR (/tmp/topicsnap-bench-folder), BIN (a topicsnap
# binary; default this tree's, built), OLD_BIN (another build, run first,
# then BIN: one after the other, not beside) and OLD_LABEL (its name in the
# table), PORT (18791), LIMIT (900 s a build).
set -euo pipefail
cd "$(dirname "$0")/.."
GOFLAGS="$(go env GOFLAGS)"
[[ " ${GOFLAGS:-} " == *duckdb_arrow* ]] || export GOFLAGS="$GOFLAGS -tags=duckdb_arrow"
TOPICS="${1:-1000}"
PARTS="${2:-12}"
DIR="${BENCH_DIR:-/tmp/topicsnap-bench-folder}"
PORT="${PORT:-18791}"
LIMIT="${LIMIT:-900}"
mkdir -p "$DIR"
if [[ -z "${BIN:-}" ]]; then
	BIN="$DIR/topicsnap"
	go build -o "$BIN" ./cmd/topicsnap
fi
go build -o "$DIR/mkcluster" ./scripts/benchtools/mkcluster
whole="$DIR/whole-$TOPICS-$PARTS"
[[ -d "$whole" ]] || "$DIR/mkcluster" -topics "$TOPICS" -partitions "$PARTS" -records 50 "$whole"
tick=$(getconf CLK_TCK)

# cpu PID: CPU seconds of PID and its children (the workers), alive now.
cpu() {
	local p sum=0
	for p in "$1" $(pgrep -P "$1" || true); do
		[[ -r /proc/$p/stat ]] || continue
		# utime and stime: fields 14 and 15, after the command in parentheses.
		sum=$((sum + $(sed 's/^.*) //' "/proc/$p/stat" | awk '{print $12 + $13}')))
	done
	echo "scale=2; $sum / $tick" | bc -l
}

row() { # row LABEL BIN
	local label=$1 bin=$2 pid t0 first="" clear="" page1="" slowest=0 quiet=0 views=0 t took html
	"$bin" serve --dir "$whole" --addr "127.0.0.1:$PORT" >"$DIR/warm-$PORT.log" 2>&1 &
	pid=$!
	for ((i = 0; i < 3000; i++)); do
		curl -sf -o /dev/null "http://127.0.0.1:$PORT/healthz" && break
		sleep 0.1
	done
	html="$DIR/warm-$PORT.html"
	t0=$(date +%s.%N)
	while :; do
		took=$(curl -s -o "$html" --max-time 120 -w '%{time_total}' "http://127.0.0.1:$PORT/") || took=120
		views=$((views + 1))
		t=$(echo "$(date +%s.%N) - $t0" | bc -l)
		[[ -n "$first" ]] || first=$took
		if (($(echo "$took > $slowest" | bc -l))); then slowest=$took; fi
		if ! grep -q 'class="tile pending"' "$html"; then
			[[ -n "$page1" ]] || page1=$t
			if ! grep -q 'still being computed' "$html"; then
				quiet=$((quiet + 1))
				[[ -n "$clear" ]] || clear=$t
			else
				quiet=0 clear=""
			fi
		else
			quiet=0 clear=""
		fi
		((quiet < 5)) || break
		if (($(echo "$t > $LIMIT" | bc -l))); then clear="> $LIMIT"; break; fi
		sleep 5
	done
	used=$(cpu "$pid")
	kill "$pid"
	wait "$pid" 2>/dev/null || true
	[[ "$clear" == ">"* ]] || clear=$(printf '%.1f' "$clear")
	printf '| %s | %.3f | %.1f | %s | %.3f | %s | %s |\n' "$label" "$first" "$page1" "$clear" "$slowest" "$views" "$used"
}

echo "### serve: the overview of $TOPICS × $PARTS warmed, $(date -u +%Y-%m-%dT%H:%MZ), load $(cut -d' ' -f1-3 /proc/loadavg) at the start"
echo
echo "| build | first view s | page 1 no tile pending after s | every tile known after s | slowest view s | views | CPU s (front + workers) |"
echo "|---|---:|---:|---:|---:|---:|---:|"
if [[ -n "${OLD_BIN:-}" ]]; then
	row "old (${OLD_LABEL:-$OLD_BIN})" "$OLD_BIN"
fi
row "new ($(git rev-parse --short HEAD))" "$BIN"
echo
echo "load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
