#!/usr/bin/env bash
# Builds bin/rumbench with the commit recorded in every run bundle.
# Usage: scripts/build.sh [TAG ...]   (TAG: rocksdb, wiredtiger, or all)
# The default build (pebble, sqlite, bbolt, the servers, null) needs no
# extra system package. The cgo engines rocksdb and wiredtiger are built in
# when asked for (their Debian packages are installed then), and stay in
# later builds (bin/.tags remembers them), so a binary never loses an engine.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p bin
declare -A want=()
if [ -f bin/.tags ]; then
	for t in $(cat bin/.tags); do want[$t]=1; done
fi
for t in "$@"; do
	case "$t" in
	all) want[rocksdb]=1; want[wiredtiger]=1 ;;
	rocksdb|wiredtiger) want[$t]=1 ;;
	*) echo "build: unknown tag $t (rocksdb, wiredtiger or all)" >&2; exit 2 ;;
	esac
done
pkgs=()
[ -n "${want[rocksdb]:-}" ] && pkgs+=(librocksdb-dev)
[ -n "${want[wiredtiger]:-}" ] && pkgs+=(libwiredtiger-dev)
scripts/deps.sh "${pkgs[@]}"
tags=$(printf '%s\n' "${!want[@]}" | sort | paste -sd, -)
commit=$(git rev-parse HEAD 2>/dev/null || echo unknown)
if [ -n "$(git status --porcelain 2>/dev/null | grep -v '^??' || true)" ]; then commit="$commit-dirty"; fi
# C is compiled without -g (Go's default CGO_CFLAGS is "-O2 -g"): gcc emits
# the same machine code, only the C parts' DWARF is left out (symbols stay,
# so perf still names C functions). That saves ~15 s of a first build's CPU,
# 8 of them in SQLite's amalgamation. A CGO_CFLAGS set in the environment
# is kept as it is.
if [ -z "${CGO_CFLAGS+set}" ]; then
	export CGO_CFLAGS
	CGO_CFLAGS=$(scripts/cgo-cflags.sh)
fi
go build -tags "$tags" -ldflags "-X rumbench/internal/version.Commit=$commit" -o bin/rumbench ./cmd/rumbench
echo "${tags//,/ }" > bin/.tags
