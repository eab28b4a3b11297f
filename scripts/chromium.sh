#!/usr/bin/env bash
# Print the path of a Chromium binary for the browser tests, installing
# Debian's chromium package if none is on PATH.
#
# Usage: scripts/chromium.sh
#
#   TOPICSNAP_CHROMIUM=$(scripts/chromium.sh) go test -run Browser -v ./server
#
# It looks for chromium (then chromium-browser, google-chrome) on PATH; if
# there is none it runs, once, `apt-get update` and `apt-get install -y
# --no-install-recommends chromium` (as root, or through sudo when it is
# there without a password). Only the path goes to stdout; apt's output goes
# to stderr. When nothing works it exits 1 with a one-line message saying
# how to install Chromium.
set -euo pipefail

find_chromium() {
	local c
	for c in chromium chromium-browser google-chrome google-chrome-stable; do
		if command -v "$c" >/dev/null 2>&1; then
			command -v "$c"
			return 0
		fi
	done
	return 1
}

if find_chromium; then
	exit 0
fi

how="install Chromium and put it on PATH, e.g. on Debian/Ubuntu: sudo apt-get install -y --no-install-recommends chromium"

if ! command -v apt-get >/dev/null 2>&1; then
	echo "scripts/chromium.sh: no chromium on PATH and no apt-get here: $how" >&2
	exit 1
fi

as_root=()
if [ "$(id -u)" -ne 0 ]; then
	if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
		as_root=(sudo -n)
	else
		echo "scripts/chromium.sh: no chromium on PATH and not root: $how" >&2
		exit 1
	fi
fi

echo "scripts/chromium.sh: chromium not found; installing Debian's chromium package with apt-get" >&2
export DEBIAN_FRONTEND=noninteractive
if ! "${as_root[@]}" apt-get update >&2 ||
	! "${as_root[@]}" apt-get install -y --no-install-recommends chromium >&2; then
	echo "scripts/chromium.sh: apt-get could not install chromium: $how" >&2
	exit 1
fi

if ! find_chromium; then
	echo "scripts/chromium.sh: chromium was installed but is not on PATH: $how" >&2
	exit 1
fi
