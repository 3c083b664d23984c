#!/bin/bash
# The load-floor benchmark (issue 19): per kv engine, the LinkBench load
# and an l.i0 of as many rows, each run by rumbench with the kv layer's
# batches and the connections' inserts recorded, then replayed through the
# bare store (the batches) and through a fresh kv DB (the inserts: the kv
# layer alone, without the workload and the runner): each load's rate
# both ways, rumbench/store, and LinkBench-load/l.i0 both ways; the CPU per
# row on all three sides, to the end and until the engine is quiet:
# store/rumbench and store/kv-replay (pass -v for the per-round lines).
# The churn steps: scripts/churnfloor.sh.
# Sizes: FLOOR_NODES (default 1000000), FLOOR_ROUNDS (3), FLOOR_KV_ENGINES
# (pebble,rocksdb,wiredtiger,bbolt); FLOOR_ENGINE_OPTS (key=value,... for
# every side, e.g. unique_check=false); FLOOR_KV_WARM=1 (the kv replay reads
# each call's rows just before it, as rumbench's generator leaves them in
# the cache, and takes that read's CPU out); FLOOR_LOAD_SERIAL=1 (both
# replays play the streams one after another on one goroutine: the
# cheapest loop on a store with one writer at a time, bbolt). See internal/floorbench/store_floor_test.go
# and docs/kv-floor.md.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh librocksdb-dev libwiredtiger-dev
exec go test -tags rocksdb,wiredtiger -run '^$' -bench BenchmarkLoadFloor -benchtime 1x -count 1 -timeout 60m "$@" ./internal/floorbench
