#!/bin/bash
# The client-floor benchmark (issues 15, 39): per server engine and insert
# benchmark step, client CPU per operation of the cheapest clients of the
# same statements — a C loop on libpq / the MariaDB C client, and bare Go
# driver loops — beside the rumbench step run in process and the rumbench
# binary run as users run it (client CPU from its step summary), with their
# ratios (median of FLOOR_ROUNDS rounds, phases rotated each round). Uses the
# local servers, or $RUMBENCH_PG_DSN / $RUMBENCH_MYSQL_DSN; databases
# rumbench_test_floor and rumbench_test_floor_bin are created and dropped.
# Sizes: FLOOR_ENGINES (postgres,innodb), FLOOR_STEPS (l.i0,l.i1,qr100,qp100),
# FLOOR_ROWS, FLOOR_CHURN, FLOOR_SECONDS, FLOOR_ROUNDS, FLOOR_BARES (the bare
# loops to run: C,pgx,pgconn,driver, default all), FLOOR_BIN_INTERVAL
# (the binary's --interval, 1s) (see internal/floorbench/floor_test.go).
# The C loops need gcc and libpq-dev / libmariadb-dev (Debian); without
# them the benchmark runs without the C loop and says so.
set -euo pipefail
cd "$(dirname "$0")/.."
build=$(mktemp -d "${TMPDIR:-/tmp}/rumbench-floor.XXXXXX")
trap 'rm -rf "$build"' EXIT
src=internal/floorbench/cloop
go build -o "$build/rumbench" ./cmd/rumbench
export FLOOR_BIN="$build/rumbench"
if command -v gcc >/dev/null; then
	mkdir -p "$build/c"
	if command -v pg_config >/dev/null && [ -f "$(pg_config --includedir)/libpq-fe.h" ]; then
		gcc -O2 -Wall -o "$build/c/floor_pg" "$src/loop.c" "$src/pg.c" -I"$(pg_config --includedir)" -lpq
	else
		echo "floor.sh: no libpq headers (apt-get install libpq-dev): no C loop for postgres" >&2
	fi
	if command -v mariadb_config >/dev/null; then
		# shellcheck disable=SC2046 # the flags are words
		gcc -O2 -Wall -o "$build/c/floor_my" "$src/loop.c" "$src/my.c" $(mariadb_config --cflags --libs)
	else
		echo "floor.sh: no mariadb_config (apt-get install libmariadb-dev): no C loop for innodb" >&2
	fi
	export FLOOR_CLOOP_DIR="$build/c"
else
	echo "floor.sh: no gcc: the C loops are not built" >&2
fi
flock /tmp/rumbench-server-tests.lock \
	go test -run '^$' -bench BenchmarkFloor -benchtime 1x -count 1 -timeout 60m "$@" ./internal/floorbench
