#!/usr/bin/env bash
# Run a real single-node Apache Kafka 4.x broker (KRaft, combined broker +
# controller) on 127.0.0.1 for topicsnap's integration tests.
#
# Listeners: PLAINTEXT, SASL_PLAINTEXT (SCRAM), SSL (server certificate from a
# throwaway CA made with openssl in the state dir; no client certificates) and
# the KRaft CONTROLLER. The StandardAuthorizer is on: ANONYMOUS (PLAINTEXT,
# SSL, the controller), admin and topicsnap are super users; noacl has no ACL
# at all, so tests can see what a principal without grants gets.
#
# The broker jars come from Maven Central (no tarball, no Docker): `install`
# writes a tiny pom.xml into the cache dir and lets Maven copy the runtime
# dependencies of org.apache.kafka:kafka_2.13 + kafka-tools into lib/.
#
# Usage:
#   scripts/kafka.sh install              fetch jars into the cache dir (idempotent) and write
#                                         the kafka-*.sh commands topicsnap's hints name into
#                                         $KAFKA_HOME/bin (env prints it as KAFKA_BIN)
#   scripts/kafka.sh start [--keep-data]  (re)start a broker; wipes data unless --keep-data
#   scripts/kafka.sh stop                 SIGTERM, wait up to 30s, then SIGKILL; ok if not running
#   scripts/kafka.sh kill                 SIGKILL the broker (a crash); start --keep-data recovers it
#   scripts/kafka.sh restart-broker       stop + start --keep-data (topics/offsets survive)
#   scripts/kafka.sh status               exit 0 if running and answering, 1 otherwise
#   scripts/kafka.sh env                  print the KAFKA_* env lines for tests
#   scripts/kafka.sh logs [N]             tail the broker log
#   scripts/kafka.sh run CLASS [ARGS...]  run a Java main from the Kafka classpath, e.g.
#                                         org.apache.kafka.tools.TopicCommand --bootstrap-server ... --list
#
# Environment (all optional):
#   TOPICSNAP_KAFKA_VERSION    Kafka version from Maven Central (default 4.4.0)
#   TOPICSNAP_KAFKA_HOME       jar cache dir (default ~/.cache/topicsnap/kafka-<version>)
#   TOPICSNAP_KAFKA_DIR        state dir: config, data, log, pid (default /tmp/topicsnap-kafka)
#   TOPICSNAP_KAFKA_PORT       PLAINTEXT listener port (default 39092)
#   TOPICSNAP_KAFKA_SASL_PORT  SASL_PLAINTEXT (SCRAM-SHA-256/512) listener port (default 39093)
#   TOPICSNAP_KAFKA_CONTROLLER_PORT  KRaft controller listener port (default 39094)
#   TOPICSNAP_KAFKA_SSL_PORT   SSL listener port (default 39095)
#   TOPICSNAP_KAFKA_HEAP       JVM heap options (default "-Xms256m -Xmx512m")
#   TOPICSNAP_KAFKA_START_TIMEOUT  seconds to wait for the broker (default 90)
#
# SCRAM users (both SCRAM-SHA-256 and SCRAM-SHA-512), created at format time:
#   topicsnap / topicsnap-secret     super user
#   admin / admin-secret             super user
#   noacl / noacl-secret             no ACLs (tests grant what they need)
#
# TLS: STATE_DIR/tls/ca.pem is the CA that signed the SSL listener's
# certificate (SAN IP:127.0.0.1, DNS:localhost). A fresh start makes a new CA
# and certificate; start --keep-data (and restart-broker) keeps them.
set -euo pipefail

KAFKA_VERSION="${TOPICSNAP_KAFKA_VERSION:-4.4.0}"
LOG4J_VERSION="2.25.5"           # what kafka-server 4.4.0 itself depends on
DEP_PLUGIN="org.apache.maven.plugins:maven-dependency-plugin:3.6.1"
KAFKA_HOME="${TOPICSNAP_KAFKA_HOME:-${HOME:-/root}/.cache/topicsnap/kafka-$KAFKA_VERSION}"
STATE_DIR="${TOPICSNAP_KAFKA_DIR:-/tmp/topicsnap-kafka}"
PORT="${TOPICSNAP_KAFKA_PORT:-39092}"
SASL_PORT="${TOPICSNAP_KAFKA_SASL_PORT:-39093}"
CONTROLLER_PORT="${TOPICSNAP_KAFKA_CONTROLLER_PORT:-39094}"
SSL_PORT="${TOPICSNAP_KAFKA_SSL_PORT:-39095}"
HEAP_OPTS="${TOPICSNAP_KAFKA_HEAP:--Xms256m -Xmx512m}"
START_TIMEOUT="${TOPICSNAP_KAFKA_START_TIMEOUT:-90}"
HOST=127.0.0.1

# Fixed cluster id (22-char url-safe base64 of 16 bytes); data is wiped on
# each fresh start anyway.
CLUSTER_ID="dG9waWNzbmFwLWthZmthIQ"
SCRAM_USER=topicsnap
SCRAM_PASS=topicsnap-secret
ADMIN_USER=admin
ADMIN_PASS=admin-secret
NOACL_USER=noacl
NOACL_PASS=noacl-secret

LIB_DIR="$KAFKA_HOME/lib"
MARKER="$KAFKA_HOME/.installed"
BIN_DIR="$KAFKA_HOME/bin"
DATA_DIR="$STATE_DIR/data"
CONFIG="$STATE_DIR/server.properties"
LOG4J_CONFIG="$STATE_DIR/log4j2.properties"
LOG_FILE="$STATE_DIR/server.log"
PID_FILE="$STATE_DIR/kafka.pid"
CLIENT_SASL256="$STATE_DIR/client-scram-sha-256.properties"
CLIENT_SASL512="$STATE_DIR/client-scram-sha-512.properties"
TLS_DIR="$STATE_DIR/tls"
TLS_CA="$TLS_DIR/ca.pem"
TLS_KEYSTORE="$TLS_DIR/server.p12"
TLS_PASS=topicsnap-keystore   # the throwaway keystore's password

SERVICE=kafka.sh
# shellcheck source=service-lib.sh
source "$(dirname "$0")/service-lib.sh"

# ---------------------------------------------------------------- install

is_installed() {
  [[ -f "$MARKER" && "$(cat "$MARKER" 2>/dev/null)" == "$KAFKA_VERSION" ]] \
    && compgen -G "$LIB_DIR/kafka_2.13-$KAFKA_VERSION.jar" >/dev/null
}

write_pom() {
  cat >"$1" <<EOF
<?xml version="1.0" encoding="UTF-8"?>
<!-- generated by topicsnap scripts/kafka.sh; only used to fetch the broker jars -->
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>local.topicsnap</groupId>
  <artifactId>kafka-broker-runtime</artifactId>
  <version>$KAFKA_VERSION</version>
  <packaging>pom</packaging>
  <dependencies>
    <!-- broker: kafka.Kafka, kafka.tools.StorageTool -->
    <dependency>
      <groupId>org.apache.kafka</groupId><artifactId>kafka_2.13</artifactId><version>$KAFKA_VERSION</version>
    </dependency>
    <!-- CLI classes: org.apache.kafka.tools.TopicCommand, ConsoleProducer, consumer.ConsoleConsumer, ... -->
    <dependency>
      <groupId>org.apache.kafka</groupId><artifactId>kafka-tools</artifactId><version>$KAFKA_VERSION</version>
    </dependency>
    <!-- logging: slf4j 1.7 (what Kafka uses) -> log4j2 -->
    <dependency>
      <groupId>org.apache.logging.log4j</groupId><artifactId>log4j-slf4j-impl</artifactId><version>$LOG4J_VERSION</version>
    </dependency>
    <dependency>
      <groupId>org.apache.logging.log4j</groupId><artifactId>log4j-core</artifactId><version>$LOG4J_VERSION</version>
    </dependency>
  </dependencies>
</project>
EOF
}

# The commands of Kafka's distribution bin/ that topicsnap's hints and docs
# name, each as the Java main class its script runs (Kafka 4.x).
TOOLS=(
  "kafka-consumer-groups.sh org.apache.kafka.tools.consumer.group.ConsumerGroupCommand"
  "kafka-topics.sh org.apache.kafka.tools.TopicCommand"
  "kafka-configs.sh org.apache.kafka.tools.ConfigCommand"
  "kafka-acls.sh org.apache.kafka.tools.AclCommand"
  "kafka-dump-log.sh org.apache.kafka.tools.DumpLogSegments"
  "kafka-leader-election.sh org.apache.kafka.tools.LeaderElectionCommand"
  "kafka-console-consumer.sh org.apache.kafka.tools.consumer.ConsoleConsumer"
  "kafka-console-producer.sh org.apache.kafka.tools.ConsoleProducer"
  "kafka-delete-records.sh org.apache.kafka.tools.DeleteRecordsCommand"
  "kafka-get-offsets.sh org.apache.kafka.tools.GetOffsetShell"
)

write_wrappers() {
  # One script per tool in $BIN_DIR, run as the distribution's would be:
  # put $BIN_DIR on PATH and the hints run as printed.
  write_tools_log4j
  mkdir -p "$BIN_DIR"
  local t name class
  for t in "${TOOLS[@]}"; do
    name="${t%% *}" class="${t#* }"
    {
      echo '#!/usr/bin/env bash'
      echo "# generated by topicsnap scripts/kafka.sh install: Kafka $KAFKA_VERSION's $name"
      echo "exec java -Djava.awt.headless=true -Dlog4j2.configurationFile='$KAFKA_HOME/tools-log4j2.properties' -cp '$LIB_DIR/*' $class \"\$@\""
    } >"$BIN_DIR/$name.tmp"
    chmod 0755 "$BIN_DIR/$name.tmp"
    mv "$BIN_DIR/$name.tmp" "$BIN_DIR/$name"
  done
}

cmd_install() {
  if is_installed; then
    write_wrappers
    log "Kafka $KAFKA_VERSION already installed in $KAFKA_HOME (commands in $BIN_DIR)"
    return 0
  fi
  command -v mvn >/dev/null || die "mvn (Maven) is required to fetch the Kafka jars"
  command -v java >/dev/null || die "java (17+) is required"
  log "installing Kafka $KAFKA_VERSION jars from Maven Central into $KAFKA_HOME"
  mkdir -p "$KAFKA_HOME"
  rm -f "$MARKER"
  local tmp_lib="$KAFKA_HOME/lib.tmp.$$"
  rm -rf "$tmp_lib"
  write_pom "$KAFKA_HOME/pom.xml"
  if ! mvn -B -q -f "$KAFKA_HOME/pom.xml" "$DEP_PLUGIN:copy-dependencies" \
      -DincludeScope=runtime -DoutputDirectory="$tmp_lib" >"$KAFKA_HOME/mvn.log" 2>&1; then
    tail -n 40 "$KAFKA_HOME/mvn.log" >&2 || true
    rm -rf "$tmp_lib"
    die "maven failed to fetch Kafka $KAFKA_VERSION (full log: $KAFKA_HOME/mvn.log)"
  fi
  [[ -f "$tmp_lib/kafka_2.13-$KAFKA_VERSION.jar" ]] || die "kafka_2.13-$KAFKA_VERSION.jar missing after maven run"
  rm -rf "$LIB_DIR"
  mv "$tmp_lib" "$LIB_DIR"
  write_wrappers
  echo "$KAFKA_VERSION" >"$MARKER"   # written last: marks a complete install
  log "installed $(ls "$LIB_DIR" | wc -l) jars into $LIB_DIR, commands into $BIN_DIR"
}

# ---------------------------------------------------------------- helpers

kafka_java() {
  # Run a Java main class with the Kafka classpath and our log4j2 config.
  local log4j="$LOG4J_CONFIG"
  [[ -f "$log4j" ]] || log4j="$KAFKA_HOME/tools-log4j2.properties"
  java -Djava.awt.headless=true -Dlog4j2.configurationFile="$log4j" \
    -cp "$LIB_DIR/*" "$@"
}

# read_pid: the broker's pid, if it still runs our config.
read_pid() { pid_in "$PID_FILE" "kafka\.Kafka $CONFIG"; }

print_env() {
  echo "KAFKA_BROKERS=$HOST:$PORT"
  echo "KAFKA_SASL_BROKERS=$HOST:$SASL_PORT"
  echo "KAFKA_SASL_USER=$SCRAM_USER"
  echo "KAFKA_SASL_PASSWORD=$SCRAM_PASS"
  echo "KAFKA_SASL_MECHANISMS=SCRAM-SHA-256,SCRAM-SHA-512"
  echo "KAFKA_ADMIN_USER=$ADMIN_USER"
  echo "KAFKA_ADMIN_PASSWORD=$ADMIN_PASS"
  echo "KAFKA_NOACL_USER=$NOACL_USER"
  echo "KAFKA_NOACL_PASSWORD=$NOACL_PASS"
  echo "KAFKA_SSL_BROKERS=$HOST:$SSL_PORT"
  echo "KAFKA_SSL_CA=$TLS_CA"
  echo "KAFKA_VERSION=$KAFKA_VERSION"
  echo "KAFKA_BIN=$BIN_DIR"
  echo "KAFKA_STATE_DIR=$STATE_DIR"
  echo "KAFKA_LOG=$LOG_FILE"
}

write_configs() {
  mkdir -p "$STATE_DIR"
  local jaas_server='org.apache.kafka.common.security.scram.ScramLoginModule required;'
  cat >"$CONFIG" <<EOF
# generated by topicsnap scripts/kafka.sh
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@$HOST:$CONTROLLER_PORT
controller.listener.names=CONTROLLER

listeners=PLAINTEXT://$HOST:$PORT,SASL_PLAINTEXT://$HOST:$SASL_PORT,SSL://$HOST:$SSL_PORT,CONTROLLER://$HOST:$CONTROLLER_PORT
advertised.listeners=PLAINTEXT://$HOST:$PORT,SASL_PLAINTEXT://$HOST:$SASL_PORT,SSL://$HOST:$SSL_PORT
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,SASL_PLAINTEXT:SASL_PLAINTEXT,SSL:SSL,CONTROLLER:PLAINTEXT
inter.broker.listener.name=PLAINTEXT

# SSL listener: server certificate only (no client auth), from make_tls
listener.name.ssl.ssl.keystore.type=PKCS12
listener.name.ssl.ssl.keystore.location=$TLS_KEYSTORE
listener.name.ssl.ssl.keystore.password=$TLS_PASS
listener.name.ssl.ssl.key.password=$TLS_PASS
listener.name.ssl.ssl.client.auth=none

# ACLs (KRaft): PLAINTEXT, SSL and the controller listener are ANONYMOUS and
# super users, so only SASL principals other than admin/topicsnap meet ACLs.
authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer
super.users=User:ANONYMOUS;User:$ADMIN_USER;User:$SCRAM_USER
allow.everyone.if.no.acl.found=false

# SCRAM on the SASL_PLAINTEXT listener (users created by StorageTool --add-scram)
sasl.enabled.mechanisms=SCRAM-SHA-256,SCRAM-SHA-512
listener.name.sasl_plaintext.sasl.enabled.mechanisms=SCRAM-SHA-256,SCRAM-SHA-512
listener.name.sasl_plaintext.scram-sha-256.sasl.jaas.config=$jaas_server
listener.name.sasl_plaintext.scram-sha-512.sasl.jaas.config=$jaas_server

log.dirs=$DATA_DIR

# single node, tuned for fast tests
num.partitions=1
default.replication.factor=1
min.insync.replicas=1
offsets.topic.replication.factor=1
offsets.topic.num.partitions=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
transaction.state.log.num.partitions=1
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
group.initial.rebalance.delay.ms=0
auto.create.topics.enable=false
delete.topic.enable=true
log.retention.check.interval.ms=1000
# 4.x delays the first retention/flush run by 30s by default; start at once
log.initial.task.delay.ms=0
log.segment.delete.delay.ms=0
log.cleaner.backoff.ms=1000
log.flush.offset.checkpoint.interval.ms=1000
num.network.threads=2
num.io.threads=4
num.recovery.threads.per.data.dir=1
EOF

  cat >"$LOG4J_CONFIG" <<'EOF'
# generated by topicsnap scripts/kafka.sh: everything to stdout (-> server.log)
status = warn
appender.console.type = Console
appender.console.name = STDOUT
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = [%d] %p %m (%c)%n
rootLogger.level = INFO
rootLogger.appenderRef.stdout.ref = STDOUT
logger.request.name = kafka.request.logger
logger.request.level = WARN
logger.controller.name = kafka.controller
logger.controller.level = INFO
logger.cleaner.name = kafka.log.LogCleaner
logger.cleaner.level = INFO
logger.authorizer.name = kafka.authorizer.logger
logger.authorizer.level = WARN
logger.kafka.name = org.apache.kafka
logger.kafka.level = INFO
EOF

  # Client configs handy for CLI checks against the SASL listener.
  local m file
  for m in 256 512; do
    file="$STATE_DIR/client-scram-sha-$m.properties"
    cat >"$file" <<EOF
security.protocol=SASL_PLAINTEXT
sasl.mechanism=SCRAM-SHA-$m
sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="$SCRAM_USER" password="$SCRAM_PASS";
EOF
  done
  # ... and the SSL listener (Java tools read the CA as a PEM truststore).
  cat >"$STATE_DIR/client-ssl.properties" <<EOF
security.protocol=SSL
ssl.truststore.type=PEM
ssl.truststore.location=$TLS_CA
EOF
}

write_tools_log4j() {
  # Quiet log4j2 config for CLI tools run via `kafka.sh run` without a state dir.
  [[ -f "$KAFKA_HOME/tools-log4j2.properties" ]] && return 0
  mkdir -p "$KAFKA_HOME"
  cat >"$KAFKA_HOME/tools-log4j2.properties" <<'EOF'
status = warn
appender.console.type = Console
appender.console.name = STDERR
appender.console.target = SYSTEM_ERR
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = [%d] %p %m (%c)%n
rootLogger.level = WARN
rootLogger.appenderRef.stderr.ref = STDERR
EOF
}

format_storage() {
  local out
  if ! out="$(kafka_java kafka.tools.StorageTool format \
      --config "$CONFIG" --cluster-id "$CLUSTER_ID" \
      --add-scram "SCRAM-SHA-256=[name=$SCRAM_USER,password=$SCRAM_PASS]" \
      --add-scram "SCRAM-SHA-512=[name=$SCRAM_USER,password=$SCRAM_PASS]" \
      --add-scram "SCRAM-SHA-256=[name=$ADMIN_USER,password=$ADMIN_PASS]" \
      --add-scram "SCRAM-SHA-512=[name=$ADMIN_USER,password=$ADMIN_PASS]" \
      --add-scram "SCRAM-SHA-256=[name=$NOACL_USER,password=$NOACL_PASS]" \
      --add-scram "SCRAM-SHA-512=[name=$NOACL_USER,password=$NOACL_PASS]" 2>&1)"; then
    echo "$out" >&2
    die "kafka storage format failed"
  fi
  log "formatted $DATA_DIR (cluster id $CLUSTER_ID)"
}

# make_tls writes a throwaway CA and the SSL listener's certificate into
# TLS_DIR (tls_files), with the PKCS12 keystore the broker reads.
make_tls() {
  if ! command -v openssl >/dev/null && command -v apt-get >/dev/null && [[ "$(id -u)" == 0 ]]; then
    log "installing openssl (Debian package) for the SSL listener's certificate"
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq openssl; } >/dev/null 2>&1 || true
  fi
  tls_files "$TLS_DIR" "the SSL listener's certificate" "topicsnap test CA" \
    openssl pkcs12 -export -in server.pem -inkey server.key -certfile ca.pem \
    -name kafka -out server.p12 -passout "pass:$TLS_PASS"
}

# ---------------------------------------------------------------- stop

cmd_stop() {
  local pid
  if ! pid="$(read_pid)"; then
    rm -f "$PID_FILE"
    log "broker not running"
    return 0
  fi
  stop_pid broker "$pid" 30
  rm -f "$PID_FILE"
  log "broker stopped"
}

# cmd_kill ends the broker at once (SIGKILL), as a crash or a pulled cable
# would; start --keep-data brings it back with its log.
cmd_kill() {
  local pid
  if ! pid="$(read_pid)"; then
    log "broker not running"
    return 0
  fi
  kill -KILL "$pid" 2>/dev/null || true
  wait_gone "$pid" 50 || true
  rm -f "$PID_FILE"
  log "broker killed"
}

# ---------------------------------------------------------------- start

cmd_start() {
  local keep_data=0
  while [[ $# -gt 0 ]]; do
    case "$1" in
      --keep-data|--keep) keep_data=1 ;;
      *) die "start: unknown option $1" ;;
    esac
    shift
  done

  cmd_install
  command -v java >/dev/null || die "java (17+) is required"
  cmd_stop

  local p
  for p in "$PORT" "$SASL_PORT" "$SSL_PORT" "$CONTROLLER_PORT"; do
    if port_open "$p"; then
      die "port $HOST:$p is already in use by another process (not the broker in $STATE_DIR)"
    fi
  done

  mkdir -p "$STATE_DIR"
  if [[ $keep_data -eq 0 ]]; then
    rm -rf "$DATA_DIR"
  fi
  # A fresh start gets a fresh CA; --keep-data keeps the one clients trust.
  if [[ $keep_data -eq 0 || ! -f "$TLS_KEYSTORE" || ! -f "$TLS_CA" ]]; then
    make_tls
  fi
  write_configs
  if [[ ! -f "$DATA_DIR/meta.properties" ]]; then
    format_storage
  else
    log "keeping existing data in $DATA_DIR"
  fi

  if [[ $keep_data -eq 1 && -f "$LOG_FILE" ]]; then
    mv -f "$LOG_FILE" "$LOG_FILE.prev"
  fi
  : >"$LOG_FILE"

  # shellcheck disable=SC2086  # HEAP_OPTS is a word list on purpose
  nohup java $HEAP_OPTS -XX:+UseG1GC -XX:MaxGCPauseMillis=20 \
    -Djava.awt.headless=true \
    -Dlog4j2.configurationFile="$LOG4J_CONFIG" \
    -Dkafka.logs.dir="$STATE_DIR" \
    -cp "$LIB_DIR/*" kafka.Kafka "$CONFIG" \
    </dev/null >>"$LOG_FILE" 2>&1 &
  local pid=$!
  echo "$pid" >"$PID_FILE"
  log "started broker pid $pid, waiting up to ${START_TIMEOUT}s (log: $LOG_FILE)"

  local deadline=$((SECONDS + START_TIMEOUT))
  while :; do
    if ! kill -0 "$pid" 2>/dev/null; then
      log "broker process exited during startup; last log lines:"
      tail -n 60 "$LOG_FILE" >&2 || true
      rm -f "$PID_FILE"
      exit 1
    fi
    if grep -q "Kafka Server started" "$LOG_FILE" 2>/dev/null \
        && port_open "$PORT" && port_open "$SASL_PORT" && port_open "$SSL_PORT"; then
      break
    fi
    if ((SECONDS >= deadline)); then
      log "broker did not become ready within ${START_TIMEOUT}s; last log lines:"
      tail -n 60 "$LOG_FILE" >&2 || true
      cmd_stop || true
      exit 1
    fi
    sleep 0.2
  done
  log "broker ready (Kafka $KAFKA_VERSION)"
  print_env
}

# ---------------------------------------------------------------- status

cmd_status() {
  local pid
  if pid="$(read_pid)"; then
    if port_open "$PORT"; then
      echo "running (pid $pid) PLAINTEXT $HOST:$PORT SASL_PLAINTEXT $HOST:$SASL_PORT SSL $HOST:$SSL_PORT"
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
    start) cmd_start "$@" ;;
    stop) cmd_stop ;;
    kill) cmd_kill ;;
    restart-broker|restart) cmd_stop; cmd_start --keep-data ;;
    status) cmd_status ;;
    env) print_env ;;
    logs) tail -n "${1:-100}" "$LOG_FILE" ;;
    run)
      [[ $# -ge 1 ]] || die "run: need a main class"
      is_installed || cmd_install
      write_tools_log4j
      LOG4J_CONFIG="$KAFKA_HOME/tools-log4j2.properties" kafka_java "$@"
      ;;
    -h|--help|help|"")
      usage
      [[ -n "$cmd" ]] || exit 2
      ;;
    *) die "unknown command '$cmd' (try: install start stop restart-broker status env logs run)" ;;
  esac
}

main "$@"
