#!/usr/bin/env bash
# Installs the Debian packages rumbench needs when they are missing.
# Usage: scripts/deps.sh [extra-package ...]
set -euo pipefail

need=()
command -v go >/dev/null || { echo "deps: Go 1.26+ is required (https://go.dev/dl); put it on PATH" >&2; exit 1; }
command -v gcc >/dev/null || need+=(gcc libc6-dev)
for p in "$@"; do
	dpkg -s "$p" >/dev/null 2>&1 || need+=("$p")
done
if ((${#need[@]})); then
	SUDO=""
	if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
	echo "deps: installing ${need[*]}" >&2
	$SUDO apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
fi
