#!/bin/bash
# The read floor (issue 50): per kv engine and per operation the workloads
# issue (point gets, range scans forward and reverse, a count, the
# deleter's DeleteOldest, a hot-row update, LinkBench's request types),
# the kv layer's calls on the store recorded and replayed on the bare
# store, A B A B: the process CPU per operation both ways and bare/kv (the
# kv layer's rate as a share of the store's). Sizes: FLOOR_READ_ROWS
# (300000), FLOOR_READ_NODES (10000), FLOOR_READ_SCALE (1), FLOOR_ROUNDS (3),
# FLOOR_KV_ENGINES (pebble,rocksdb,wiredtiger,bbolt), FLOOR_READ_OPS (all).
# See internal/floorbench/read_floor_test.go.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh librocksdb-dev libwiredtiger-dev
uptime
exec go test -tags rocksdb,wiredtiger -run '^$' -bench BenchmarkReadFloor -benchtime 1x -count 1 -v -timeout 90m "$@" ./internal/floorbench
