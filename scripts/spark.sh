#!/usr/bin/env bash
# Run a real Apache Spark Connect server (local[2]) on 127.0.0.1 for
# topicsnap's Spark tests and benchmarks (`--engine spark`).
#
# Spark comes from PyPI: pyspark carries Spark's jars, the Spark Connect jar
# and sbin/start-connect-server.sh. `install` makes a Python venv in the
# cache dir and pip-installs pyspark==VERSION into it (about 520 MB, once).
# The server runs on Java 17 with every port pinned on loopback and the UI
# off; its scratch space (spark.local.dir, the warehouse, the logs) lives in
# the state dir.
#
# For s3a:// (a snapshot in a bucket, read where it lives), `install` also
# fetches org.apache.hadoop:hadoop-aws of the Hadoop version of pyspark's
# own jars (hadoop-client-api-X.jar) and its runtime dependencies (the AWS
# SDK bundle, about 690 MB) from Maven Central with Maven's dependency
# plugin, once, into their own cache dir; `start` puts them on the server's
# classpath (--jars). The bucket's endpoint and credentials are not the
# server's: each topicsnap session sets them (fs.s3a.* session conf).
#
# Usage:
#   scripts/spark.sh install   fetch pyspark into the cache dir (idempotent)
#   scripts/spark.sh start     (re)start the Connect server, wait until it answers, print env lines
#   scripts/spark.sh stop      stop it (SIGTERM, wait up to 30s, then SIGKILL); ok if not running
#   scripts/spark.sh status    exit 0 if running and answering, 1 otherwise
#   scripts/spark.sh env       print the SPARK_* env lines for tests
#   scripts/spark.sh logs [N]  tail the server log
#
# Environment (all optional):
#   TOPICSNAP_SPARK_VERSION      pyspark version from PyPI (default 4.3.0)
#   TOPICSNAP_SPARK_HOME         venv dir (default ~/.cache/topicsnap/spark-<version>)
#   TOPICSNAP_SPARK_DIR          state dir: logs, pid, scratch (default /tmp/topicsnap-spark)
#   TOPICSNAP_SPARK_PORT         Spark Connect gRPC port (default 38100)
#   TOPICSNAP_SPARK_DRIVER_PORT  driver RPC port (default PORT+1)
#   TOPICSNAP_SPARK_BM_PORT      block manager port (default PORT+2)
#   TOPICSNAP_SPARK_MASTER       master (default local[2])
#   TOPICSNAP_SPARK_MEMORY       driver memory (default 1g)
#   TOPICSNAP_SPARK_JAVA_HOME    a Java 17 home (default: found under /usr/lib/jvm, else java on PATH)
#   TOPICSNAP_SPARK_START_TIMEOUT  seconds to wait for the server (default 120)
#   TOPICSNAP_SPARK_S3A_HOME     hadoop-aws jars dir (default ~/.cache/topicsnap/spark-s3a-<hadoop version>)
set -euo pipefail

SPARK_VERSION="${TOPICSNAP_SPARK_VERSION:-4.3.0}"
SPARK_VENV="${TOPICSNAP_SPARK_HOME:-${HOME:-/root}/.cache/topicsnap/spark-$SPARK_VERSION}"
STATE_DIR="${TOPICSNAP_SPARK_DIR:-/tmp/topicsnap-spark}"
PORT="${TOPICSNAP_SPARK_PORT:-38100}"
DRIVER_PORT="${TOPICSNAP_SPARK_DRIVER_PORT:-$((PORT + 1))}"
BM_PORT="${TOPICSNAP_SPARK_BM_PORT:-$((PORT + 2))}"
MASTER="${TOPICSNAP_SPARK_MASTER:-local[2]}"
MEMORY="${TOPICSNAP_SPARK_MEMORY:-1g}"
START_TIMEOUT="${TOPICSNAP_SPARK_START_TIMEOUT:-120}"
HOST=127.0.0.1
DEP_PLUGIN="org.apache.maven.plugins:maven-dependency-plugin:3.6.1"

MARKER="$SPARK_VENV/.installed"
LOG_DIR="$STATE_DIR/logs"
PID_DIR="$STATE_DIR/pid"
LOG_FILE="$STATE_DIR/start.log"

SERVICE=spark.sh
# shellcheck source=service-lib.sh
source "$(dirname "$0")/service-lib.sh"

# ---------------------------------------------------------------- install

is_installed() {
  [[ -f "$MARKER" && "$(cat "$MARKER" 2>/dev/null)" == "$SPARK_VERSION" ]]
}

cmd_install() {
  if is_installed; then
    log "pyspark $SPARK_VERSION already installed in $SPARK_VENV"
    install_s3a
    return 0
  fi
  command -v python3 >/dev/null || die "python3 is required to install pyspark"
  log "installing pyspark==$SPARK_VERSION from PyPI into $SPARK_VENV (about 520 MB)"
  rm -rf "$SPARK_VENV"
  mkdir -p "$(dirname "$SPARK_VENV")"
  local plog="$SPARK_VENV.pip.log"
  if ! python3 -m venv "$SPARK_VENV" >"$plog" 2>&1 \
      || ! "$SPARK_VENV/bin/pip" install -q --disable-pip-version-check "pyspark==$SPARK_VERSION" >>"$plog" 2>&1; then
    tail -n 40 "$plog" >&2 || true
    rm -rf "$SPARK_VENV"
    die "pip failed to install pyspark==$SPARK_VERSION (log: $plog)"
  fi
  [[ -x "$(spark_home)/sbin/start-connect-server.sh" ]] || die "sbin/start-connect-server.sh missing from pyspark $SPARK_VERSION"
  echo "$SPARK_VERSION" >"$MARKER"   # written last: marks a complete install
  log "installed pyspark $SPARK_VERSION ($(du -sh "$SPARK_VENV" | cut -f1))"
  install_s3a
}

# hadoop_version is the Hadoop of pyspark's jars (hadoop-client-api-X.jar):
# hadoop-aws must be the same version.
hadoop_version() {
  local home f
  home="$(spark_home)" || return 1
  f="$(compgen -G "$home/jars/hadoop-client-api-*.jar" | head -n1 || true)"
  [[ -n "$f" ]] || return 1
  f="${f##*/hadoop-client-api-}"
  echo "${f%.jar}"
}

s3a_home() {
  local hv
  hv="$(hadoop_version)" || return 1
  echo "${TOPICSNAP_SPARK_S3A_HOME:-${HOME:-/root}/.cache/topicsnap/spark-s3a-$hv}"
}

# install_s3a fetches hadoop-aws (the s3a:// file system) of Spark's Hadoop
# version and its runtime dependencies into the s3a cache dir, once.
install_s3a() {
  local hv dir tmp
  hv="$(hadoop_version)" || die "no hadoop-client-api-*.jar in pyspark's jars: cannot tell Spark's Hadoop version"
  dir="$(s3a_home)" || die "cannot name the s3a jars' dir"
  [[ -n "$dir" && "$dir" != / ]] || die "cannot name the s3a jars' dir"
  if [[ "$(cat "$dir/.installed" 2>/dev/null)" == "$hv" && -f "$dir/jars/hadoop-aws-$hv.jar" ]]; then
    return 0
  fi
  command -v mvn >/dev/null || die "mvn (Maven) is required to fetch hadoop-aws for s3a://"
  log "fetching org.apache.hadoop:hadoop-aws:$hv and the AWS SDK bundle from Maven Central into $dir (about 690 MB, once)"
  mkdir -p "$dir"
  rm -f "$dir/.installed"
  cat >"$dir/pom.xml" <<EOF
<?xml version="1.0" encoding="UTF-8"?>
<!-- generated by topicsnap scripts/spark.sh; only used to fetch the s3a:// jars -->
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>local.topicsnap</groupId>
  <artifactId>spark-s3a-runtime</artifactId>
  <version>$hv</version>
  <packaging>pom</packaging>
  <dependencies>
    <!-- S3AFileSystem; its runtime dependencies are the AWS SDK v2 bundle,
         analyticsaccelerator-s3 and wildfly-openssl (hadoop-common is
         "provided": Spark's own hadoop-client jars) -->
    <dependency>
      <groupId>org.apache.hadoop</groupId><artifactId>hadoop-aws</artifactId><version>$hv</version>
    </dependency>
  </dependencies>
</project>
EOF
  tmp="$dir/jars.tmp.$$"
  rm -rf "$tmp"
  if ! mvn -B -q -f "$dir/pom.xml" "$DEP_PLUGIN:copy-dependencies" \
      -DincludeScope=runtime -DoutputDirectory="$tmp" >"$dir/mvn.log" 2>&1; then
    tail -n 40 "$dir/mvn.log" >&2 || true
    rm -rf "$tmp"
    die "maven failed to fetch hadoop-aws $hv (full log: $dir/mvn.log)"
  fi
  [[ -f "$tmp/hadoop-aws-$hv.jar" ]] || die "hadoop-aws-$hv.jar missing after the maven run"
  rm -rf "$dir/jars"
  mv "$tmp" "$dir/jars"
  echo "$hv" >"$dir/.installed"   # written last: marks a complete install
  log "installed $(ls "$dir/jars" | wc -l) jars for s3a:// into $dir/jars ($(du -sh "$dir/jars" | cut -f1))"
}

# s3a_jars is the comma-separated list of the s3a jars, for --jars.
s3a_jars() {
  local dir
  dir="$(s3a_home)" || return 1
  compgen -G "$dir/jars/*.jar" | paste -sd, -
}

# spark_home is pyspark's folder: Spark's jars/, bin/ and sbin/.
spark_home() {
  local d
  for d in "$SPARK_VENV"/lib/python3*/site-packages/pyspark; do
    [[ -d "$d" ]] && { echo "$d"; return 0; }
  done
  return 1
}

java17_home() {
  if [[ -n "${TOPICSNAP_SPARK_JAVA_HOME:-}" ]]; then
    echo "$TOPICSNAP_SPARK_JAVA_HOME"
    return 0
  fi
  local d
  for d in /usr/lib/jvm/java-17-openjdk-amd64 /usr/lib/jvm/java-17-openjdk* /usr/lib/jvm/temurin-17*; do
    [[ -x "$d/bin/java" ]] && { echo "$d"; return 0; }
  done
  command -v java >/dev/null || return 1
  dirname "$(dirname "$(readlink -f "$(command -v java)")")"
}

# ---------------------------------------------------------------- helpers

# read_pid: the server's pid (from the pid file spark-daemon.sh writes), if
# it still serves our port.
read_pid() {
  local f
  f="$(compgen -G "$PID_DIR/spark-*SparkConnectServer*.pid" | head -n1 || true)"
  [[ -n "$f" ]] || return 1
  pid_in "$f" "spark\.connect\.grpc\.binding\.port=$PORT"
}

print_env() {
  echo "SPARK_REMOTE=sc://$HOST:$PORT"
  echo "TOPICSNAP_SPARK_REMOTE=sc://$HOST:$PORT"
  echo "SPARK_VERSION=$SPARK_VERSION"
  echo "SPARK_STATE_DIR=$STATE_DIR"
  echo "SPARK_LOG=$LOG_DIR/spark-topicsnap-org.apache.spark.sql.connect.service.SparkConnectServer-1-$(hostname).out"
}

# ---------------------------------------------------------------- stop

cmd_stop() {
  local pid
  if ! pid="$(read_pid)"; then
    rm -f "$PID_DIR"/*.pid 2>/dev/null || true
    log "server not running"
    return 0
  fi
  stop_pid "Spark Connect server" "$pid" 30
  rm -f "$PID_DIR"/*.pid 2>/dev/null || true
  log "server stopped"
}

# ---------------------------------------------------------------- start

cmd_start() {
  cmd_install
  cmd_stop
  local p
  for p in "$PORT" "$DRIVER_PORT" "$BM_PORT"; do
    if port_open "$p"; then
      die "port $HOST:$p is already in use by another process (not the Spark server in $STATE_DIR)"
    fi
  done
  local home jh jars
  home="$(spark_home)" || die "pyspark's folder not found in $SPARK_VENV (scripts/spark.sh install)"
  jars="$(s3a_jars)" || true
  [[ -n "$jars" ]] || die "the s3a jars are not installed (scripts/spark.sh install)"
  jh="$(java17_home)" || die "Java 17 is required (set TOPICSNAP_SPARK_JAVA_HOME)"
  rm -rf "$STATE_DIR"
  mkdir -p "$LOG_DIR" "$PID_DIR" "$STATE_DIR/local" "$STATE_DIR/warehouse"
  : >"$LOG_FILE"
  log "starting Spark Connect $SPARK_VERSION on $HOST:$PORT ($MASTER, driver memory $MEMORY)"
  # start-connect-server.sh daemonizes through spark-daemon.sh, which
  # writes the pid file in SPARK_PID_DIR and the log in SPARK_LOG_DIR.
  if ! JAVA_HOME="$jh" SPARK_HOME="$home" SPARK_LOG_DIR="$LOG_DIR" SPARK_PID_DIR="$PID_DIR" \
      SPARK_IDENT_STRING=topicsnap SPARK_LOCAL_IP="$HOST" \
      "$home/sbin/start-connect-server.sh" \
      --master "$MASTER" --driver-memory "$MEMORY" \
      --jars "$jars" \
      --conf spark.connect.grpc.binding.address="$HOST" \
      --conf spark.connect.grpc.binding.port="$PORT" \
      --conf spark.driver.host="$HOST" \
      --conf spark.driver.bindAddress="$HOST" \
      --conf spark.driver.port="$DRIVER_PORT" \
      --conf spark.blockManager.port="$BM_PORT" \
      --conf spark.ui.enabled=false \
      --conf spark.local.dir="$STATE_DIR/local" \
      --conf spark.sql.warehouse.dir="$STATE_DIR/warehouse" \
      --conf spark.sql.session.timeZone=UTC \
      --conf spark.sql.shuffle.partitions=4 \
      --conf "spark.driver.extraJavaOptions=-Dderby.system.home=$STATE_DIR" \
      >>"$LOG_FILE" 2>&1; then
    tail -n 40 "$LOG_FILE" >&2 || true
    die "start-connect-server.sh failed"
  fi
  local deadline=$((SECONDS + START_TIMEOUT)) pid=""
  while :; do
    pid="$(read_pid || true)"
    if [[ -n "$pid" ]] && port_open "$PORT"; then
      break
    fi
    if ((SECONDS >= deadline)); then
      log "server did not answer on $HOST:$PORT within ${START_TIMEOUT}s; last log lines:"
      tail -n 60 "$LOG_DIR"/*.out >&2 2>/dev/null || true
      cmd_stop || true
      exit 1
    fi
    if [[ -z "$pid" ]] && ((SECONDS > 5)) && ! compgen -G "$PID_DIR/*.pid" >/dev/null; then
      log "server process exited during startup; last log lines:"
      tail -n 60 "$LOG_DIR"/*.out >&2 2>/dev/null || true
      exit 1
    fi
    sleep 0.2
  done
  log "server ready (pid $pid, log: $(ls "$LOG_DIR"/*.out 2>/dev/null | head -n1))"
  print_env
}

# ---------------------------------------------------------------- status

cmd_status() {
  local pid
  if pid="$(read_pid)"; then
    if port_open "$PORT"; then
      echo "running (pid $pid) sc://$HOST:$PORT"
      return 0
    fi
    echo "starting or unhealthy (pid $pid, port $PORT not answering)"
    return 1
  fi
  echo "not running"
  return 1
}

# ---------------------------------------------------------------- main

main() {
  local cmd="${1:-}"
  [[ $# -gt 0 ]] && shift
  case "$cmd" in
    install) cmd_install ;;
    start) cmd_start ;;
    stop) cmd_stop ;;
    status) cmd_status ;;
    env) print_env ;;
    logs) tail -n "${1:-100}" "$LOG_DIR"/*.out ;;
    -h|--help|help|"")
      usage
      [[ -n "$cmd" ]] || exit 2
      ;;
    *) die "unknown command '$cmd' (try: install start stop status env logs)" ;;
  esac
}

main "$@"
