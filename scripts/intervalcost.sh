#!/bin/bash
# The interval-cost check (issue 39): the rumbench binary's client CPU per
# operation at --interval 0.1s against 10s, and its measuring thread's CPU
# (sampler_cpu_us) at 0.1 s as a share of a core, on the local servers (or
# $RUMBENCH_PG_DSN / $RUMBENCH_MYSQL_DSN). Sizes: FLOOR_ENGINES
# (postgres,innodb), INTERVAL_STEPS (qr100), FLOOR_ROWS (200000),
# INTERVAL_SECONDS (20), FLOOR_ROUNDS (3); see
# internal/floorbench/interval_test.go.
set -euo pipefail
cd "$(dirname "$0")/.."
build=$(mktemp -d "${TMPDIR:-/tmp}/rumbench-interval.XXXXXX")
trap 'rm -rf "$build"' EXIT
go build -o "$build/rumbench" ./cmd/rumbench
export FLOOR_BIN="$build/rumbench"
flock /tmp/rumbench-server-tests.lock \
	go test -run '^$' -bench BenchmarkIntervalCost -benchtime 1x -count 1 -timeout 60m "$@" ./internal/floorbench
