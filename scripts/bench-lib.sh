# Shared by the bench scripts (sourced, not run). The caller defines
# log and die.

CLK_TCK="$(getconf CLK_TCK)"

# System-wide busy CPU time in clock ticks (all cores), from /proc/stat.
sys_busy_ticks() { awk '/^cpu /{print $2 + $3 + $4 + $7 + $8 + $9; exit}' /proc/stat; }

# wait_quiet: the machine is shared (2 cores); wait up to BENCH_QUIET_WAIT
# seconds (default 600) until, over 5 s, less than BENCH_QUIET_BUSY (default
# 0.25) of one core is busy, so other people's builds and tests do not skew
# the numbers. Proceeds with a warning after that.
wait_quiet() {
  local limit="${BENCH_QUIET_WAIT:-600}" max_busy="${BENCH_QUIET_BUSY:-0.25}" waited=0 b0 b1 busy
  while :; do
    b0="$(sys_busy_ticks)"
    sleep 5
    b1="$(sys_busy_ticks)"
    busy="$(awk -v a="$b0" -v b="$b1" -v hz="$CLK_TCK" 'BEGIN{printf "%.2f", (b-a)/hz/5}')"
    if awk -v b="$busy" -v m="$max_busy" 'BEGIN{exit !(b < m)}'; then
      return 0
    fi
    if ((waited >= limit)); then
      log "warning: the machine is still busy (${busy} cores of other work) after ${limit}s; measuring anyway"
      return 0
    fi
    ((waited == 0)) && log "machine busy (${busy} cores in use by others); waiting up to ${limit}s for it to settle"
    waited=$((waited + 5))
  done
}

# ensure_duckdb_cli VERSION: sets DUCKDB to the DuckDB CLI of that version,
# installing duckdb-cli from PyPI into the venv $VENV (default
# ~/.cache/topicsnap/venv) when it is missing or another version. The
# wheel's bin/duckdb is a Python wrapper that costs ~80 ms of interpreter
# start per call, so the real binary inside the package is used.
ensure_duckdb_cli() {
  local want="$1" have=""
  VENV="${VENV:-$HOME/.cache/topicsnap/venv}"
  DUCKDB="$(compgen -G "$VENV/lib/python3*/site-packages/duckdb_cli/duckdb" | head -n 1 || true)"
  [[ -n "$DUCKDB" && -x "$DUCKDB" ]] && have="$("$DUCKDB" -csv -noheader -c "SELECT version()" 2>/dev/null | tr -d '\r"v')"
  if [[ "$have" != "$want" ]]; then
    log "installing duckdb-cli==$want from PyPI into $VENV"
    [[ -x "$VENV/bin/pip" ]] || python3 -m venv "$VENV" || die "python3 -m venv failed (apt-get install python3-venv?)"
    "$VENV/bin/pip" install -q "duckdb-cli==$want" || die "pip install duckdb-cli==$want failed"
    DUCKDB="$(compgen -G "$VENV/lib/python3*/site-packages/duckdb_cli/duckdb" | head -n 1 || true)"
  fi
  [[ -n "$DUCKDB" && -x "$DUCKDB" ]] || die "no DuckDB CLI in $VENV after installing duckdb-cli==$want"
}
