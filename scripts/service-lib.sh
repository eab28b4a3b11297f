# shellcheck shell=bash
# What the server scripts (kafka.sh, s3.sh, registry.sh, spark.sh) share:
# their messages, the port probe, the pid they trust and the way they stop
# a server. A script sets SERVICE (its name in messages) and HOST, then
# sources this file.

log() { echo "$SERVICE: $*" >&2; }
die() { log "error: $*"; exit 1; }

# port_open PORT: something accepts connections on HOST:PORT.
port_open() { (exec 3<>"/dev/tcp/$HOST/$1") 2>/dev/null; }

# pid_in FILE PATTERN: the pid written in FILE, if that process still runs
# and its command line matches PATTERN (grep -E): pids get reused, so a
# stale file must not make a script signal someone else's process.
pid_in() {
  local file="$1" pattern="$2" pid
  [[ -f "$file" ]] || return 1
  pid="$(cat "$file" 2>/dev/null || true)"
  [[ "$pid" =~ ^[0-9]+$ ]] || return 1
  [[ -r "/proc/$pid/cmdline" ]] && tr '\0' ' ' <"/proc/$pid/cmdline" | grep -qE -- "$pattern" || return 1
  echo "$pid"
}

# wait_gone PID TENTHS: wait up to TENTHS tenths of a second for PID to end;
# false if it still runs.
wait_gone() {
  local i
  for ((i = 0; i < $2; i++)); do
    kill -0 "$1" 2>/dev/null || return 0
    sleep 0.1
  done
  ! kill -0 "$1" 2>/dev/null
}

# stop_pid WHAT PID SECONDS: SIGTERM, up to SECONDS for it to end, then
# SIGKILL (and up to 5 s more).
stop_pid() {
  local what="$1" pid="$2" secs="$3"
  log "stopping $what (pid $pid)"
  kill -TERM "$pid" 2>/dev/null || true
  if ! wait_gone "$pid" $((secs * 10)); then
    log "$what did not exit after ${secs}s, sending SIGKILL"
    kill -KILL "$pid" 2>/dev/null || true
    wait_gone "$pid" 50 || true
  fi
}

# tls_files DIR WHAT CA_NAME [CMD...]: a throwaway CA (CA_NAME) and a server
# certificate signed by it (EC P-256, ten years, SAN IP:HOST and
# DNS:localhost) in DIR as ca.pem, ca.key, server.key and server.pem; CMD,
# if given, runs in the new folder before it takes DIR's place (the broker
# makes its keystore so). WHAT names the certificate in messages. Files
# appear whole or not at all.
tls_files() {
  local dir="$1" what="$2" ca="$3"
  shift 3
  command -v openssl >/dev/null || die "openssl is required for $what (e.g. sudo apt-get install -y openssl)"
  local tmp="$dir.tmp.$$"
  rm -rf "$tmp"
  mkdir -p "$tmp"
  if ! (
    set -e
    cd "$tmp"
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
      -keyout ca.key -out ca.pem -days 3650 -subj "/CN=$ca"
    openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
      -keyout server.key -out server.csr -subj "/CN=localhost"
    printf '%s\n' "subjectAltName=IP:$HOST,DNS:localhost" "basicConstraints=CA:FALSE" \
      "keyUsage=digitalSignature" "extendedKeyUsage=serverAuth" >server.ext
    openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -set_serial "0x$(openssl rand -hex 8)" \
      -days 3650 -extfile server.ext -out server.pem
    if (($#)); then "$@"; fi
  ) >"$tmp.log" 2>&1; then
    cat "$tmp.log" >&2
    rm -rf "$tmp" "$tmp.log"
    die "could not make $what"
  fi
  rm -rf "$dir" "$tmp.log"
  mv "$tmp" "$dir"
  log "made a throwaway CA and $what in $dir"
}

# usage: the script's header comment, as its help.
usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; }
