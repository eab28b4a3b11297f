#!/usr/bin/env bash
# Run a real Schema Registry (Apicurio Registry, which serves the Confluent
# API under /apis/ccompat/v7) on 127.0.0.1 for topicsnap's tests of
# schema-encoded topics (Avro, Protobuf, JSON Schema).
#
# Apicurio comes from Maven Central (no Docker, no download of its own):
# `install` lets Maven copy io.apicurio:apicurio-registry-app:VERSION:tar.gz:all,
# a ready-built Quarkus application, and unpacks it into the cache dir.
# Storage is in memory (an in-process H2 database): every start is empty.
# Apicurio 3.3 needs Java 21 or newer: the script uses TOPICSNAP_REGISTRY_JAVA,
# else the first JDK >= 21 it finds under /usr/lib/jvm, else `java` if it is new
# enough; set TOPICSNAP_REGISTRY_VERSION=2.6.13.Final to run on Java 17.
#
# Usage:
#   scripts/registry.sh install   fetch and unpack into the cache dir (idempotent)
#   scripts/registry.sh start     (re)start; waits until the Confluent API answers,
#                                 then prints the env lines for tests
#   scripts/registry.sh stop      SIGTERM, wait up to 30s, then SIGKILL; ok if not running
#   scripts/registry.sh status    exit 0 if running and answering, 1 otherwise
#   scripts/registry.sh env       print the env lines
#   scripts/registry.sh logs [N]  tail the registry's log
#
# Environment (all optional):
#   TOPICSNAP_REGISTRY_VERSION     apicurio-registry-app version (default 3.3.3)
#   TOPICSNAP_REGISTRY_HOME        cache dir (default ~/.cache/topicsnap/apicurio-<version>)
#   TOPICSNAP_REGISTRY_DIR         state dir: log, pid (default /tmp/topicsnap-registry)
#   TOPICSNAP_REGISTRY_PORT        HTTP port of the API (default 38081)
#   TOPICSNAP_REGISTRY_SSL_PORT    HTTPS port of the same API (default 38083)
#   TOPICSNAP_REGISTRY_MGMT_PORT   Quarkus management port, /health (default 38082)
#   TOPICSNAP_REGISTRY_JAVA        the java binary to run it with
#   TOPICSNAP_REGISTRY_HEAP        JVM heap options (default "-Xms128m -Xmx512m")
#   TOPICSNAP_REGISTRY_START_TIMEOUT  seconds to wait (default 120)
#
# TLS: the one registry process serves the API over HTTP and over HTTPS
# (Quarkus: quarkus.http.ssl-port, quarkus.http.ssl.certificate.files and
# key-files, insecure-requests=enabled). Each start makes a throwaway CA and
# the server's certificate (EC P-256, SAN IP:127.0.0.1 and DNS:localhost)
# with openssl in STATE_DIR/tls; STATE_DIR/tls/ca.pem is the CA to trust
# (SCHEMA_REGISTRY_TLS_CA).
set -euo pipefail

REGISTRY_VERSION="${TOPICSNAP_REGISTRY_VERSION:-3.3.3}"
DEP_PLUGIN="org.apache.maven.plugins:maven-dependency-plugin:3.6.1"
REGISTRY_HOME="${TOPICSNAP_REGISTRY_HOME:-${HOME:-/root}/.cache/topicsnap/apicurio-$REGISTRY_VERSION}"
STATE_DIR="${TOPICSNAP_REGISTRY_DIR:-/tmp/topicsnap-registry}"
PORT="${TOPICSNAP_REGISTRY_PORT:-38081}"
MGMT_PORT="${TOPICSNAP_REGISTRY_MGMT_PORT:-38082}"
SSL_PORT="${TOPICSNAP_REGISTRY_SSL_PORT:-38083}"
HEAP_OPTS="${TOPICSNAP_REGISTRY_HEAP:--Xms128m -Xmx512m}"
START_TIMEOUT="${TOPICSNAP_REGISTRY_START_TIMEOUT:-120}"
HOST=127.0.0.1
# The registry runs from its state dir: make the paths absolute.
[[ "$STATE_DIR" == /* ]] || STATE_DIR="$PWD/$STATE_DIR"
[[ "$REGISTRY_HOME" == /* ]] || REGISTRY_HOME="$PWD/$REGISTRY_HOME"

APP_DIR="$REGISTRY_HOME/app"
MARKER="$REGISTRY_HOME/.installed"
LOG_FILE="$STATE_DIR/registry.log"
PID_FILE="$STATE_DIR/registry.pid"
TLS_DIR="$STATE_DIR/tls"

SERVICE=registry.sh
# shellcheck source=service-lib.sh
source "$(dirname "$0")/service-lib.sh"

is_installed() { [[ -f "$MARKER" && "$(cat "$MARKER")" == "$REGISTRY_VERSION" && -f "$APP_DIR/quarkus-run.jar" ]]; }

# java_major prints the major version of the java binary $1.
java_major() {
  "$1" -version 2>&1 | sed -n 's/.*version "\([0-9]*\).*/\1/p' | head -n 1
}

# pick_java prints the java binary to run this Apicurio version with.
pick_java() {
  local need=17
  [[ "$REGISTRY_VERSION" == 3.[1-9]* ]] && need=21
  if [[ -n "${TOPICSNAP_REGISTRY_JAVA:-}" ]]; then
    echo "$TOPICSNAP_REGISTRY_JAVA"
    return 0
  fi
  local j v
  for j in "$(command -v java || true)" /usr/lib/jvm/*/bin/java; do
    [[ -n "$j" && -x "$j" ]] || continue
    v="$(java_major "$j")"
    if [[ -n "$v" && "$v" -ge "$need" ]]; then
      echo "$j"
      return 0
    fi
  done
  die "Apicurio Registry $REGISTRY_VERSION needs Java $need or newer (set TOPICSNAP_REGISTRY_JAVA, or TOPICSNAP_REGISTRY_VERSION=2.6.13.Final for Java 17)"
}

cmd_install() {
  if is_installed; then
    log "Apicurio Registry $REGISTRY_VERSION already installed in $APP_DIR"
    return 0
  fi
  command -v mvn >/dev/null || die "mvn (Maven) is required to fetch Apicurio Registry"
  log "installing Apicurio Registry $REGISTRY_VERSION from Maven Central into $REGISTRY_HOME"
  mkdir -p "$REGISTRY_HOME"
  rm -f "$MARKER"
  local dl="$REGISTRY_HOME/dl.tmp.$$" tmp="$REGISTRY_HOME/app.tmp.$$"
  rm -rf "$dl" "$tmp"
  # Run Maven from the cache dir: a pom.xml in the caller's folder must not matter.
  if ! (cd "$REGISTRY_HOME" && mvn -B -q "$DEP_PLUGIN:copy" \
      -Dartifact="io.apicurio:apicurio-registry-app:$REGISTRY_VERSION:tar.gz:all" \
      -DoutputDirectory="$dl") >"$REGISTRY_HOME/mvn.log" 2>&1; then
    tail -n 40 "$REGISTRY_HOME/mvn.log" >&2 || true
    rm -rf "$dl"
    die "maven failed to fetch Apicurio Registry $REGISTRY_VERSION (full log: $REGISTRY_HOME/mvn.log)"
  fi
  mkdir -p "$tmp"
  tar xzf "$dl"/apicurio-registry-app-*.tar.gz -C "$tmp" || { rm -rf "$dl" "$tmp"; die "could not unpack the Apicurio tarball"; }
  [[ -f "$tmp/quarkus-run.jar" ]] || { rm -rf "$dl" "$tmp"; die "quarkus-run.jar missing from the Apicurio tarball"; }
  rm -rf "$APP_DIR" "$dl"
  mv "$tmp" "$APP_DIR"
  echo "$REGISTRY_VERSION" >"$MARKER"   # written last: marks a complete install
  log "installed Apicurio Registry $REGISTRY_VERSION into $APP_DIR"
}

# read_pid: the registry's pid, if it still serves our port.
read_pid() { pid_in "$PID_FILE" "-Dquarkus\.http\.port=$PORT .*quarkus-run\.jar"; }

api_ready() {
  command -v curl >/dev/null || { port_open "$PORT" && port_open "$SSL_PORT"; return; }
  curl -sf -o /dev/null "http://$HOST:$PORT/apis/ccompat/v7/subjects" &&
    curl -sf -o /dev/null --cacert "$TLS_DIR/ca.pem" "https://$HOST:$SSL_PORT/apis/ccompat/v7/subjects"
}

# make_tls writes a throwaway CA and the HTTPS certificate into TLS_DIR
# (tls_files), as scripts/kafka.sh does for the broker's SSL listener.
make_tls() { tls_files "$TLS_DIR" "the registry's HTTPS certificate" "topicsnap registry test CA"; }

print_env() {
  echo "SCHEMA_REGISTRY_URL=http://$HOST:$PORT/apis/ccompat/v7"
  echo "SCHEMA_REGISTRY_TLS_URL=https://$HOST:$SSL_PORT/apis/ccompat/v7"
  echo "SCHEMA_REGISTRY_TLS_CA=$TLS_DIR/ca.pem"
  echo "SCHEMA_REGISTRY_VERSION=$REGISTRY_VERSION"
  echo "SCHEMA_REGISTRY_HEALTH=http://$HOST:$MGMT_PORT/health/ready"
  echo "SCHEMA_REGISTRY_LOG=$LOG_FILE"
}

cmd_stop() {
  local pid
  if ! pid="$(read_pid)"; then
    rm -f "$PID_FILE"
    log "registry not running"
    return 0
  fi
  stop_pid registry "$pid" 30
  rm -f "$PID_FILE"
  log "registry stopped"
}

cmd_start() {
  cmd_install
  local java
  java="$(pick_java)"
  cmd_stop
  local p
  for p in "$PORT" "$MGMT_PORT" "$SSL_PORT"; do
    if port_open "$p"; then
      die "port $HOST:$p is already in use by another process (not the registry in $STATE_DIR)"
    fi
  done
  mkdir -p "$STATE_DIR"
  make_tls
  : >"$LOG_FILE"
  # In-memory storage is the default of 3.x; 2.x is given it explicitly.
  # shellcheck disable=SC2086  # HEAP_OPTS is a word list on purpose
  # Run from the state dir (whatever the registry writes lands there); no
  # subshell, so that $! is the JVM's pid (nohup execs java).
  cd "$STATE_DIR"
  nohup "$java" $HEAP_OPTS -Djava.awt.headless=true \
    -Dquarkus.http.host=$HOST -Dquarkus.http.port=$PORT \
    -Dquarkus.http.ssl-port=$SSL_PORT -Dquarkus.http.insecure-requests=enabled \
    -Dquarkus.http.ssl.certificate.files="$TLS_DIR/server.pem" \
    -Dquarkus.http.ssl.certificate.key-files="$TLS_DIR/server.key" \
    -Dquarkus.management.host=$HOST -Dquarkus.management.port=$MGMT_PORT \
    -Dregistry.storage.kind=sql -Dregistry.storage.db-kind=h2 \
    -Dapicurio.storage.kind=sql -Dapicurio.storage.sql.kind=h2 \
    -Dquarkus.log.level=WARN -Dquarkus.http.access-log.enabled=false \
    -jar "$APP_DIR/quarkus-run.jar" \
    </dev/null >>"$LOG_FILE" 2>&1 &
  local pid=$!
  echo "$pid" >"$PID_FILE"
  log "started registry pid $pid ($java), waiting up to ${START_TIMEOUT}s (log: $LOG_FILE)"
  local deadline=$((SECONDS + START_TIMEOUT))
  while :; do
    if ! kill -0 "$pid" 2>/dev/null; then
      log "registry exited during startup; last log lines:"
      tail -n 60 "$LOG_FILE" >&2 || true
      rm -f "$PID_FILE"
      exit 1
    fi
    api_ready && break
    if ((SECONDS >= deadline)); then
      log "registry did not answer within ${START_TIMEOUT}s; last log lines:"
      tail -n 60 "$LOG_FILE" >&2 || true
      cmd_stop || true
      exit 1
    fi
    sleep 0.3
  done
  log "registry ready (Apicurio Registry $REGISTRY_VERSION)"
  print_env
}

cmd_status() {
  local pid
  if pid="$(read_pid)"; then
    if api_ready; then
      echo "running (pid $pid) http://$HOST:$PORT/apis/ccompat/v7 https://$HOST:$SSL_PORT/apis/ccompat/v7"
      return 0
    fi
    echo "starting or unhealthy (pid $pid)"
    return 1
  fi
  echo "not running"
  return 1
}

main() {
  local cmd="${1:-}"
  [[ $# -gt 0 ]] && shift
  case "$cmd" in
    install) cmd_install ;;
    start) cmd_start ;;
    stop) cmd_stop ;;
    status) cmd_status ;;
    env) print_env ;;
    logs) tail -n "${1:-100}" "$LOG_FILE" ;;
    -h|--help|help|"")
      usage
      [[ -n "$cmd" ]] || exit 2
      ;;
    *) die "unknown command '$cmd' (try: install start stop status env logs)" ;;
  esac
}

main "$@"
