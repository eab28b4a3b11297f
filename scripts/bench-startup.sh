#!/usr/bin/env bash
# Start-up of `topicsnap sql -c 'SELECT 1'` against the DuckDB CLI, side by
# side in one run: each round runs every command once, in turn (topicsnap,
# CLI, Go+DuckDB floor, topicsnap --version, and each BASE), so that
# drift in a shared machine falls on all of them alike. Reports the median
# wall time, CPU time (user+sys) and peak RSS of each, and topicsnap minus
# the CLI.
#
# Usage: scripts/bench-startup.sh
#
#   topicsnap       bin/topicsnap sql --dir SNAP -c 'SELECT 1'   (default format: table)
#   duckdb CLI      duckdb -c 'SELECT 1'                         (default format: duckbox)
#   Go+DuckDB floor scripts/benchtools/duckfloor 'SELECT 1': a Go program that
#                   opens DuckDB through the same driver and does nothing else
#   topicsnap -v    bin/topicsnap --version: the Go process alone (runtime,
#                   package init, the command tree), no DuckDB
#   each BASE       BIN sql --dir SNAP -c 'SELECT 1', for each BIN in BASE
#
# Environment (all optional):
#   RUNS              rounds (default 31)
#   BASE              other topicsnap binaries to compare, space-separated
#                     (e.g. a build of main from `git worktree add /tmp/base
#                     main`, a build without -tags=duckdb_arrow)
#   BENCH_DIR         work dir (default /tmp/topicsnap-bench)
#   BENCH_SNAP        snapshot folder (default BENCH_DIR/startup-snap, 1M
#                     records written by scripts/benchtools/mksnap if missing)
#   DUCKDB            DuckDB CLI binary (default: duckdb-cli from PyPI at
#                     topicsnap's DuckDB version, in ~/.cache/topicsnap/venv)
#   BENCH_NO_BUILD=1  use the existing bin/topicsnap as is
#   BENCH_QUIET_WAIT  seconds to wait for an idle machine first (default 600)
set -euo pipefail
# The build the Makefile makes: duckdb-go's Arrow interface, its build tag.
GOFLAGS="$(${GO:-go} env GOFLAGS)"
[[ " ${GOFLAGS:-} " == *duckdb_arrow* ]] || export GOFLAGS="$("${GO:-go}" env GOFLAGS) -tags=duckdb_arrow"

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
BENCH_DIR="${BENCH_DIR:-/tmp/topicsnap-bench}"
RUNS="${RUNS:-31}"
VENV="$HOME/.cache/topicsnap/venv"

log() { echo "bench-startup: $*" >&2; }
die() { log "error: $*"; exit 1; }
# shellcheck source=bench-lib.sh
source "$ROOT/scripts/bench-lib.sh"

if [[ ! -x /usr/bin/time ]]; then
  log "installing GNU time (apt-get install -y time)"
  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq time; } >/dev/null || die "apt-get install time failed"
fi
command -v python3 >/dev/null || die "python3 is required"
mkdir -p "$BENCH_DIR"

SNAP="${BENCH_SNAP:-$BENCH_DIR/startup-snap}"
if [[ ! -f "$SNAP/topicsnap.json" ]]; then
  log "writing a snapshot of 1M records to $SNAP (scripts/benchtools/mksnap)"
  rm -rf "$SNAP"
  go run ./scripts/benchtools/mksnap "$SNAP" 1000000 >/dev/null || die "mksnap failed"
fi

if [[ "${BENCH_NO_BUILD:-0}" != 1 ]]; then
  log "building bin/topicsnap"
  go build -o bin/topicsnap ./cmd/topicsnap || die "go build ./cmd/topicsnap failed"
fi
FLOOR="$BENCH_DIR/duckfloor"
if [[ "${BENCH_NO_BUILD:-0}" != 1 || ! -x "$FLOOR" ]]; then
  log "building scripts/benchtools/duckfloor"
  go build -o "$FLOOR" ./scripts/benchtools/duckfloor || die "go build ./scripts/benchtools/duckfloor failed"
fi
TS="$ROOT/bin/topicsnap"
EMBEDDED="$("$TS" sql --dir "$SNAP" --format csv -c "SELECT version()" | tail -n 1 | tr -d '\r"v')"
[[ -n "${DUCKDB:-}" ]] || ensure_duckdb_cli "$EMBEDDED"
CLI_VERSION="$("$DUCKDB" -csv -noheader -c "SELECT version()" | tr -d '\r"v')"
[[ "$CLI_VERSION" == "$EMBEDDED" ]] || log "warning: DuckDB CLI $CLI_VERSION differs from topicsnap's embedded DuckDB $EMBEDDED"

OUT="$BENCH_DIR/startup"
rm -rf "$OUT"
mkdir -p "$OUT/bin"
# Each binary is timed from a copy made by cp: a file the Go linker wrote
# (it writes through mmap) counts ~20 MiB more of peak RSS, in mapped
# pages of the page cache, than the same bytes written by cp.
cp "$TS" "$OUT/bin/topicsnap"
cp "$FLOOR" "$OUT/bin/duckfloor"
TS="$OUT/bin/topicsnap"
FLOOR="$OUT/bin/duckfloor"
declare -a NAMES=(topicsnap cli floor version)
declare -A CMD=(
  [topicsnap]="$TS sql --dir $SNAP -c 'SELECT 1'"
  [cli]="$DUCKDB -c 'SELECT 1'"
  [floor]="$FLOOR 'SELECT 1'"
  [version]="$TS --version"
)
declare -A LABEL=(
  [topicsnap]="topicsnap sql -c 'SELECT 1'"
  [cli]="duckdb CLI -c 'SELECT 1'"
  [floor]="Go+DuckDB floor (duckfloor)"
  [version]="topicsnap --version (no DuckDB)"
)
i=0
for b in ${BASE:-}; do
  [[ -x "$b" ]] || die "BASE: $b is not an executable"
  i=$((i + 1))
  NAMES+=("base$i")
  cp "$b" "$OUT/bin/base$i"
  CMD[base$i]="$OUT/bin/base$i sql --dir $SNAP -c 'SELECT 1'"
  LABEL[base$i]="$b sql -c 'SELECT 1'"
done

wait_quiet
LOAD0="$(cut -d' ' -f1-3 /proc/loadavg)"
log "$RUNS rounds of: ${NAMES[*]} (load $LOAD0)"
# The rounds, in Python for its wait4: each child's own user+sys time and
# peak RSS, to the microsecond (GNU time's are to 10 ms). Every command
# runs once first to warm the page cache; then RUNS rounds, each running
# every command once in turn. One line per command: its wall ms, CPU ms and
# RSS KiB, RUNS of each, in $OUT/NAME; its last stdout in $OUT/NAME.out.
ARGS=()
for name in "${NAMES[@]}"; do ARGS+=("$name" "${CMD[$name]}"); done
python3 - "$OUT" "$RUNS" "${ARGS[@]}" <<'PY' || die "a command failed"
import os, shlex, subprocess, sys, time
out, runs, rest = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
cmds = [(rest[i], shlex.split(rest[i + 1])) for i in range(0, len(rest), 2)]
rows = {name: [] for name, _ in cmds}
def one(name, argv):
    with open(os.path.join(out, name + ".out"), "wb") as f:
        t0 = time.perf_counter()
        p = subprocess.Popen(argv, stdout=f, stderr=subprocess.PIPE)
        _, status, ru = os.wait4(p.pid, 0)
        wall = (time.perf_counter() - t0) * 1000
        err = p.stderr.read()
        p.stderr.close()
    if status != 0:
        sys.stderr.write(err.decode(errors="replace"))
        sys.exit("%s failed: %s" % (name, shlex.join(argv)))
    return "%.2f %.2f %d" % (wall, (ru.ru_utime + ru.ru_stime) * 1000, ru.ru_maxrss)
for name, argv in cmds:
    one(name, argv)
for _ in range(runs):
    for name, argv in cmds:
        rows[name].append(one(name, argv))
for name, r in rows.items():
    with open(os.path.join(out, name), "w") as f:
        f.write("\n".join(r) + "\n")
PY
LOAD1="$(cut -d' ' -f1-3 /proc/loadavg)"
grep -q '1' "$OUT/topicsnap.out" && grep -q '1' "$OUT/cli.out" || die "SELECT 1 printed no 1"

# col NAME K: the median of column K of $OUT/NAME.
col() { awk -v k="$2" '{print $k}' "$OUT/$1" | sort -g | awk '{a[NR]=$1} END{ if (NR%2) print a[(NR+1)/2]; else printf "%.2f\n", (a[NR/2]+a[NR/2+1])/2 }'; }
{
  echo
  echo "### Start-up: topicsnap sql -c 'SELECT 1' vs DuckDB CLI $CLI_VERSION"
  echo
  echo "$(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, load $LOAD0 before and $LOAD1 after, topicsnap at $(git rev-parse --short HEAD 2>/dev/null || echo "?")$(git diff --quiet HEAD -- cmd queries catalog 2>/dev/null || echo "+local changes"), median of $RUNS rounds, each command once per round in turn."
  echo
  echo "| command | wall ms | CPU ms (user+sys) | peak RSS MiB | wall − CLI ms |"
  echo "|---|---:|---:|---:|---:|"
  CLI_WALL="$(col cli 1)"
  for name in "${NAMES[@]}"; do
    awk -v l="${LABEL[$name]}" -v w="$(col "$name" 1)" -v c="$(col "$name" 2)" -v r="$(col "$name" 3)" -v cw="$CLI_WALL" \
      'BEGIN{printf "| %s | %.1f | %.1f | %.0f | %+.1f |\n", l, w, c, r/1024, w-cw}'
  done
} | tee "$BENCH_DIR/bench-startup.md"
