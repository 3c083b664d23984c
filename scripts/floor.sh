#!/bin/bash
# The client-floor benchmark (issue 15): per server engine and insert
# benchmark step, client CPU per operation of a bare driver loop and of the
# rumbench step, side by side on the same server and table, and their ratio
# (median of FLOOR_ROUNDS rounds). Uses the local servers, or
# $RUMBENCH_PG_DSN / $RUMBENCH_MYSQL_DSN; database rumbench_test_floor is
# created and dropped. Sizes: FLOOR_ENGINES (postgres,innodb), FLOOR_STEPS
# (l.i0,l.i1,qr100,qp100), FLOOR_ROWS, FLOOR_CHURN, FLOOR_SECONDS,
# FLOOR_ROUNDS (see internal/floorbench/floor_test.go).
set -euo pipefail
cd "$(dirname "$0")/.."
exec flock /tmp/rumbench-server-tests.lock \
	go test -run '^$' -bench BenchmarkFloor -benchtime 1x -count 1 -timeout 60m "$@" ./internal/floorbench
