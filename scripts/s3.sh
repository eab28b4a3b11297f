#!/usr/bin/env bash
# Run a real S3 server, Versity S3 Gateway (versitygw, Apache-2.0) with its
# posix backend, on 127.0.0.1 for topicsnap's bucket tests.
#
# versitygw checks SigV4 signatures and implements conditional PUT
# (If-Match / If-None-Match), multipart upload with conditional completion
# and ListObjectsV2 paging: what `--dir s3://...` relies on. It comes from
# the Go module proxy (no tarball, no Docker): `install` runs
# `go install github.com/versity/versitygw/cmd/versitygw@VERSION` with GOBIN
# in the cache dir (about 100 s cold, nothing when cached).
#
# Usage:
#   scripts/s3.sh install   build versitygw into the cache dir (idempotent)
#   scripts/s3.sh start     (re)start the gateway on an empty data dir, create
#                           the bucket, print the env lines for tests
#   scripts/s3.sh stop      SIGTERM, wait up to 10s, then SIGKILL; ok if not running
#   scripts/s3.sh status    exit 0 if running and answering, 1 otherwise
#   scripts/s3.sh env       print the S3_* env lines for tests
#   scripts/s3.sh logs [N]  tail the gateway log
#
# Environment (all optional):
#   TOPICSNAP_S3_VERSION  versitygw version on the Go module proxy (default v1.8.0)
#   TOPICSNAP_S3_HOME     cache dir of the binary (default ~/.cache/topicsnap/versitygw-<version>)
#   TOPICSNAP_S3_DIR      state dir: data, log, pid (default /tmp/topicsnap-s3)
#   TOPICSNAP_S3_PORT     listen port on 127.0.0.1 (default 38090)
#   TOPICSNAP_S3_BUCKET   bucket created at start (default topicsnap-test)
#
# The access key and secret are throwaway test credentials of this local
# gateway only (root account of a server that listens on loopback).
set -euo pipefail

VGW_VERSION="${TOPICSNAP_S3_VERSION:-v1.8.0}"
VGW_HOME="${TOPICSNAP_S3_HOME:-${HOME:-/root}/.cache/topicsnap/versitygw-$VGW_VERSION}"
STATE_DIR="${TOPICSNAP_S3_DIR:-/tmp/topicsnap-s3}"
PORT="${TOPICSNAP_S3_PORT:-38090}"
BUCKET="${TOPICSNAP_S3_BUCKET:-topicsnap-test}"
HOST=127.0.0.1
ACCESS=topicsnap-test-access
SECRET=topicsnap-test-secret-key
REGION=us-east-1

BIN="$VGW_HOME/bin/versitygw"
DATA_DIR="$STATE_DIR/data"
LOG_FILE="$STATE_DIR/versitygw.log"
PID_FILE="$STATE_DIR/versitygw.pid"

SERVICE=s3.sh
# shellcheck source=service-lib.sh
source "$(dirname "$0")/service-lib.sh"

# read_pid: the gateway's pid, if it still serves our port.
read_pid() { pid_in "$PID_FILE" "versitygw.* --port $HOST:$PORT "; }

cmd_install() {
  if [[ -x "$BIN" && "$(cat "$VGW_HOME/.installed" 2>/dev/null)" == "$VGW_VERSION" ]]; then
    return 0
  fi
  command -v go >/dev/null || die "go is required to build versitygw"
  log "building versitygw $VGW_VERSION from the Go module proxy into $VGW_HOME (about 100 s the first time)"
  mkdir -p "$VGW_HOME/bin"
  # A module outside any workspace: GOFLAGS from the caller (e.g. -mod=vendor) must not apply.
  (cd "$VGW_HOME" && GOBIN="$VGW_HOME/bin" GOFLAGS= GOWORK=off \
    go install "github.com/versity/versitygw/cmd/versitygw@$VGW_VERSION") >&2 \
    || die "go install github.com/versity/versitygw/cmd/versitygw@$VGW_VERSION failed"
  echo "$VGW_VERSION" >"$VGW_HOME/.installed"
}

print_env() {
  cat <<EOF
S3_ENDPOINT=http://$HOST:$PORT
S3_ACCESS_KEY=$ACCESS
S3_SECRET_KEY=$SECRET
S3_REGION=$REGION
S3_BUCKET=$BUCKET
EOF
}

cmd_stop() {
  local pid
  if ! pid="$(read_pid)"; then
    rm -f "$PID_FILE"
    log "gateway not running"
    return 0
  fi
  stop_pid gateway "$pid" 10
  rm -f "$PID_FILE"
  log "gateway stopped"
}

# make_bucket creates BUCKET with a SigV4-signed PUT (curl's --aws-sigv4; the
# x-amz-content-sha256 header is the SHA-256 of the empty body, which
# versitygw requires),
# so nothing but curl is needed; a bucket that exists already is fine.
make_bucket() {
  command -v curl >/dev/null || die "curl is required to create the bucket"
  local code
  code="$(curl -s -o "$STATE_DIR/mb.out" -w '%{http_code}' -X PUT \
    --aws-sigv4 "aws:amz:$REGION:s3" --user "$ACCESS:$SECRET" \
    -H "x-amz-content-sha256: e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" \
    "http://$HOST:$PORT/$BUCKET")"
  case "$code" in
    200) log "created bucket $BUCKET" ;;
    409) log "bucket $BUCKET exists" ;;
    *) cat "$STATE_DIR/mb.out" >&2; die "create bucket $BUCKET: HTTP $code" ;;
  esac
}

cmd_start() {
  cmd_install
  cmd_stop
  port_open "$PORT" && die "port $HOST:$PORT is already in use by another process (not the gateway in $STATE_DIR)"
  rm -rf "$DATA_DIR"
  mkdir -p "$DATA_DIR"
  : >"$LOG_FILE"
  # The root credentials go by environment, not on the command line (ps
  # would show them); versitygw reads ROOT_ACCESS_KEY / ROOT_SECRET_KEY.
  ROOT_ACCESS_KEY="$ACCESS" ROOT_SECRET_KEY="$SECRET" \
    nohup "$BIN" --port "$HOST:$PORT" posix "$DATA_DIR" </dev/null >>"$LOG_FILE" 2>&1 &
  local pid=$!
  echo "$pid" >"$PID_FILE"
  local deadline=$((SECONDS + 30))
  until port_open "$PORT"; do
    if ! kill -0 "$pid" 2>/dev/null; then
      tail -n 40 "$LOG_FILE" >&2 || true
      rm -f "$PID_FILE"
      die "gateway exited during startup"
    fi
    ((SECONDS < deadline)) || { tail -n 40 "$LOG_FILE" >&2; cmd_stop; die "gateway not ready within 30s"; }
    sleep 0.1
  done
  make_bucket
  log "gateway ready (versitygw $VGW_VERSION, pid $pid, data $DATA_DIR)"
  print_env
}

cmd_status() {
  local pid
  if pid="$(read_pid)" && port_open "$PORT"; then
    echo "running (pid $pid) http://$HOST:$PORT"
    return 0
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
