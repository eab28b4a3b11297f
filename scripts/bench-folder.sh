#!/usr/bin/env bash
# A question about one topic in a folder of a whole cluster against the
# same question in a folder that holds that topic alone (issue 32's
# "a question about one topic costs what that topic costs"). Both folders
# are written by code (scripts/benchtools/mkcluster: T topics of P
# partitions, R records a partition, one cut a topic); each command runs
# RUNS times, the two folders alternated, and the table gives medians.
#
#   scripts/bench-folder.sh [TOPICS] [PARTITIONS]      (default 1000 12)
#
# Environment: RUNS (5), RECORDS (50 a partition), BENCH_DIR
# (/tmp/topicsnap-bench-folder), BIN (a topicsnap binary to measure
# instead of building this tree's). OLD_BIN and OLD_DIR: another build
# (an older commit's) measured in the same run, alternated with BIN, on
# the folders in OLD_DIR (written by that build's mkcluster, so in the
# layout it writes: OLD_DIR/whole-T-P and OLD_DIR/alone-T-P must exist);
# a question it does not know (a flag it lacks) is shown as "-". SERVE=1
# also times `topicsnap serve` on each folder (see the end; PORT, 18790).
set -euo pipefail
cd "$(dirname "$0")/.."
GOFLAGS="$(go env GOFLAGS)"
[[ " ${GOFLAGS:-} " == *duckdb_arrow* ]] || export GOFLAGS="$GOFLAGS -tags=duckdb_arrow"
TOPICS="${1:-1000}"
PARTS="${2:-12}"
RUNS="${RUNS:-5}"
RECORDS="${RECORDS:-50}"
DIR="${BENCH_DIR:-/tmp/topicsnap-bench-folder}"
ONE=t-0007
mkdir -p "$DIR"
if [[ -z "${BIN:-}" ]]; then
	BIN="$DIR/topicsnap"
	go build -o "$BIN" ./cmd/topicsnap
fi
go build -o "$DIR/mkcluster" ./scripts/benchtools/mkcluster
whole="$DIR/whole-$TOPICS-$PARTS" alone="$DIR/alone-$TOPICS-$PARTS"
[[ -d "$whole" ]] || "$DIR/mkcluster" -topics "$TOPICS" -partitions "$PARTS" -records "$RECORDS" "$whole"
[[ -d "$alone" ]] || "$DIR/mkcluster" -topics "$TOPICS" -partitions "$PARTS" -records "$RECORDS" -only "$ONE" "$alone"

# secs CMD...: wall seconds of one run (output discarded; exit 0 or 1, a check's verdict).
secs() {
	local t0 t1
	t0=$(date +%s.%N)
	"$@" >/dev/null 2>&1 || [[ $? -eq 1 ]] || { echo "bench-folder: failed: $*" >&2; exit 1; }
	t1=$(date +%s.%N)
	echo "$t1 - $t0" | bc -l
}
median() { sort -g | awk '{a[NR]=$1} END {m=(NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2; printf "%.3f", m}'; }

if [[ -n "${OLD_BIN:-}" ]]; then
	owhole="$OLD_DIR/whole-$TOPICS-$PARTS" oalone="$OLD_DIR/alone-$TOPICS-$PARTS"
	[[ -d "$owhole" && -d "$oalone" ]] || { echo "bench-folder: OLD_DIR must hold whole-$TOPICS-$PARTS and alone-$TOPICS-$PARTS" >&2; exit 2; }
fi

# knows BIN WORDS...: whether BIN has the command and flags (its --help parses).
knows() {
	local bin=$1
	shift
	local cmd=() w
	for w in "$@"; do
		[[ $w == --* ]] && break
		cmd+=("$w")
	done
	local flags
	flags=$("$bin" "${cmd[@]}" --help 2>/dev/null) || return 1
	for w in "$@"; do
		if [[ $w == --* ]] && ! grep -q -- "$w" <<<"$flags"; then return 1; fi
	done
}

questions=(
	"sql -c SELECT count(*) FROM \"$ONE\""
	"check gaps --topic $ONE"
	"check skew --topic $ONE"
	"check duplicates --topic $ONE"
	"check lag --topic $ONE"
	"ls --topic $ONE"
)
if [[ -n "${OLD_BIN:-}" ]]; then
	echo "| question (topic $ONE) | old: alone s | old: in $TOPICS × $PARTS s | old ratio | new: alone s | new: in $TOPICS × $PARTS s | new ratio | new within 1.5x + 50 ms |"
	echo "|---|---:|---:|---:|---:|---:|---:|---|"
else
	echo "| question (topic $ONE) | alone s | in $TOPICS topics × $PARTS s | ratio | within 1.5x + 50 ms |"
	echo "|---|---:|---:|---:|---|"
fi
for q in "${questions[@]}"; do
	read -r -a words <<<"$q"
	if [[ "${words[0]}" == sql ]]; then words=(sql -c "SELECT count(*) FROM \"$ONE\""); fi
	old=false
	if [[ -n "${OLD_BIN:-}" ]] && knows "$OLD_BIN" "${words[@]}"; then old=true; fi
	a=() w=() oa=() ow=()
	for ((i = 0; i < RUNS; i++)); do
		if $old; then oa+=("$(secs "$OLD_BIN" "${words[@]}" --dir "$oalone")"); fi
		a+=("$(secs "$BIN" "${words[@]}" --dir "$alone")")
		if $old; then ow+=("$(secs "$OLD_BIN" "${words[@]}" --dir "$owhole")"); fi
		w+=("$(secs "$BIN" "${words[@]}" --dir "$whole")")
	done
	ma=$(printf '%s\n' "${a[@]}" | median)
	mw=$(printf '%s\n' "${w[@]}" | median)
	ok=$(echo "$mw <= 1.5 * $ma + 0.05" | bc -l)
	verdict=$([[ $ok == 1 ]] && echo met || echo missed)
	if [[ -n "${OLD_BIN:-}" ]]; then
		if $old; then
			moa=$(printf '%s\n' "${oa[@]}" | median)
			mow=$(printf '%s\n' "${ow[@]}" | median)
			printf '| %s | %s | %s | %.2fx | %s | %s | %.2fx | %s |\n' "$q" "$moa" "$mow" "$(echo "$mow / $moa" | bc -l)" "$ma" "$mw" "$(echo "$mw / $ma" | bc -l)" "$verdict"
		else
			printf '| %s | - | - | - | %s | %s | %.2fx | %s |\n' "$q" "$ma" "$mw" "$(echo "$mw / $ma" | bc -l)" "$verdict"
		fi
	else
		printf '| %s | %s | %s | %.2fx | %s |\n' "$q" "$ma" "$mw" "$(echo "$mw / $ma" | bc -l)" "$verdict"
	fi
done
m=() om=()
for ((i = 0; i < RUNS; i++)); do
	if [[ -n "${OLD_BIN:-}" ]]; then om+=("$(secs "$OLD_BIN" ls --dir "$owhole")"); fi
	m+=("$(secs "$BIN" ls --dir "$whole")")
done
echo
echo "ls of the whole folder ($TOPICS topics): $(printf '%s\n' "${m[@]}" | median) s (median of $RUNS; target within 1 s)"
if [[ -n "${OLD_BIN:-}" ]]; then
	echo "ls of the whole folder, old build: $(printf '%s\n' "${om[@]}" | median) s"
fi

# With SERVE=1: `topicsnap serve` (its defaults: 2 query workers) on each
# folder, one at a time, on 127.0.0.1:$PORT (18790): the seconds until
# /healthz answers, the first (uncached) view of a check page of the topic,
# the median of RUNS later views of it each 1.2 s apart (every one finds
# the catalog due for its once-a-second refresh), an uncached API report,
# and the first view of the overview (curl gives up after 120 s) with the
# check tiles it shows, how many of them pending (computed in the
# background) and how many timed out.
[[ "${SERVE:-0}" == 1 ]] || exit 0
PORT="${PORT:-18790}"
serve_row() { # serve_row LABEL BIN DIR
	local label=$1 bin=$2 dir=$3 pid t0 t1 ready first later=() api over i
	t0=$(date +%s.%N)
	"$bin" serve --dir "$dir" --addr "127.0.0.1:$PORT" >"$DIR/serve-$PORT.log" 2>&1 &
	pid=$!
	for ((i = 0; i < 3000; i++)); do
		curl -sf -o /dev/null "http://127.0.0.1:$PORT/healthz" && break
		sleep 0.1
	done
	t1=$(date +%s.%N)
	ready=$(echo "$t1 - $t0" | bc -l)
	page="http://127.0.0.1:$PORT/checks/gaps?topic=$ONE"
	first=$(curl -s -o /dev/null -w '%{time_total}' "$page")
	for ((i = 0; i < RUNS; i++)); do
		sleep 1.2
		later+=("$(curl -s -o /dev/null -w '%{time_total}' "$page")")
	done
	api=$(curl -s -o /dev/null -w '%{time_total}' "http://127.0.0.1:$PORT/api/checks/skew?topic=$ONE")
	over=$(curl -s -o "$DIR/overview-$PORT.html" --max-time 120 -w '%{time_total}' "http://127.0.0.1:$PORT/") || over="> 120"
	tiles=$(grep -c '<a class="tile ' "$DIR/overview-$PORT.html" || true)
	pending=$(grep -c '<a class="tile pending"' "$DIR/overview-$PORT.html" || true)
	timeout=$(grep -c '<a class="tile timeout"' "$DIR/overview-$PORT.html" || true)
	kill "$pid"
	wait "$pid" 2>/dev/null || true
	printf '| %s | %.1f | %.3f | %s | %.3f | %s | %s / %s / %s |\n' "$label" "$ready" "$first" "$(printf '%s\n' "${later[@]}" | median)" "$api" "$over" "$tiles" "$pending" "$timeout"
}
echo
echo "| serve | ready s | check page, first s | check page, later (median of $RUNS) s | API report, first s | overview, first view s | its tiles / pending / timed out |"
echo "|---|---:|---:|---:|---:|---:|---:|"
if [[ -n "${OLD_BIN:-}" ]]; then
	serve_row "old: alone" "$OLD_BIN" "$oalone"
	serve_row "old: in $TOPICS × $PARTS" "$OLD_BIN" "$owhole"
fi
serve_row "new: alone" "$BIN" "$alone"
serve_row "new: in $TOPICS × $PARTS" "$BIN" "$whole"
