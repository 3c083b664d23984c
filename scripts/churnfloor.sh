#!/bin/bash
# The churn floor (issue 50): per kv engine, the insert benchmark's churn
# steps (l.i1, l.i2: per table an inserter and a deleter, 2 clients) run by
# rumbench with every call the kv layer makes on the store recorded per
# stream, then replayed concurrently on a copy of the same store as the
# bare loop of the same calls: the process CPU per row both ways, to the
# end and until the engine is quiet, and the rates. Sizes: FLOOR_CHURN_LOAD
# (rows per client loaded by l.i0, 500000), FLOOR_CHURN_ROWS (--churn-rows
# per client, 250000), FLOOR_CHURN_STEPS (l.i1,l.i2; the query steps, e.g.
# qr100,qp100, run the same way and report per query), FLOOR_QUERY_SECONDS
# (20), FLOOR_QUERY_YIELD (0: the replay's queriers do not yield their
# thread as rumbench's query workers do), FLOOR_ROUNDS (3),
# FLOOR_KV_ENGINES (pebble,rocksdb,wiredtiger; with FLOOR_WORKLOAD=linkbench
# also bbolt), FLOOR_ENGINE_OPTS,
# FLOOR_TRACE_RUMBENCH=1 (records rumbench's run too and compares its
# calls with the recorded run's, kind by kind; its CPU is then not
# rumbench's own). -cpuprofile splits by side (pprof -tagfocus
# side=rumbench or side=store). See
# internal/floorbench/churn_floor_test.go and docs/kv-floor.md.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh librocksdb-dev libwiredtiger-dev
uptime
# FLOOR_WORKLOAD=linkbench runs LinkBench's request step the same way
# instead (BenchmarkRequestFloor: FLOOR_REQUEST_NODES nodes, 100000;
# FLOOR_REQUESTERS, 4; FLOOR_REQUESTS per requester, 50000; figures per
# request).
bench=BenchmarkChurnFloor
case "${FLOOR_WORKLOAD:-ibench}" in
ibench) ;;
linkbench) bench=BenchmarkRequestFloor ;;
*) echo "churnfloor: FLOOR_WORKLOAD must be ibench or linkbench, got $FLOOR_WORKLOAD" >&2; exit 2 ;;
esac
exec go test -tags rocksdb,wiredtiger -run '^$' -bench "$bench" -benchtime 1x -count 1 -v -timeout 90m "$@" ./internal/floorbench
