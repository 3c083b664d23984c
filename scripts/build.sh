#!/usr/bin/env bash
# Builds bin/rumbench with the commit recorded in every run bundle.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
commit=$(git rev-parse HEAD 2>/dev/null || echo unknown)
if [ -n "$(git status --porcelain 2>/dev/null | grep -v '^??' || true)" ]; then commit="$commit-dirty"; fi
mkdir -p bin
go build -ldflags "-X rumbench/internal/version.Commit=$commit" -o bin/rumbench ./cmd/rumbench
