#!/usr/bin/env bash
# Builds bin/rumbench with the commit recorded in every run bundle, and the
# cgo engines rocksdb and wiredtiger (their Debian packages are installed
# when missing).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh librocksdb-dev libwiredtiger-dev
commit=$(git rev-parse HEAD 2>/dev/null || echo unknown)
if [ -n "$(git status --porcelain 2>/dev/null | grep -v '^??' || true)" ]; then commit="$commit-dirty"; fi
mkdir -p bin
go build -tags rocksdb,wiredtiger -ldflags "-X rumbench/internal/version.Commit=$commit" -o bin/rumbench ./cmd/rumbench
