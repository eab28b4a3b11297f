#!/usr/bin/env bash
# Print the path of kcat (librdkafka's command-line client), installing
# Debian's kcat package if it is not on PATH. The tests use it as a real
# librdkafka producer; the benchmarks as a peer.
set -euo pipefail
if command -v kcat >/dev/null 2>&1; then
  command -v kcat
  exit 0
fi
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo -n"
if { $sudo apt-get update -qq && $sudo apt-get install -y -qq --no-install-recommends kcat; } >&2 && command -v kcat >/dev/null 2>&1; then
  command -v kcat
  exit 0
fi
echo "kcat.sh: kcat is not installed and apt-get could not install it; run: apt-get install kcat" >&2
exit 1
