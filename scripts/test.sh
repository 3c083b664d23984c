#!/usr/bin/env bash
# Runs rumbench's checks and tests: gofmt, go vet, go test (all packages,
# with the cgo engines rocksdb and wiredtiger built in), then the
# concurrency tests again with -race.
# Server tests use the local PostgreSQL and MariaDB (see README) and fail
# rather than skip when CI or RUMBENCH_REQUIRE_SERVERS is set. The mongodb
# tests build FerretDB with scripts/ferretdb.sh (once into .cache/ferretdb/;
# a fresh clone relinks it from Go's build cache) and stop it at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh chromium librocksdb-dev libwiredtiger-dev
# The C flags of scripts/build.sh (Go's without -g), so the tests and
# bin/rumbench share Go's build cache instead of compiling SQLite twice.
if [ -z "${CGO_CFLAGS+set}" ]; then
	export CGO_CFLAGS
	CGO_CFLAGS=$(scripts/cgo-cflags.sh)
fi
unformatted=$(gofmt -l cmd internal)
if [ -n "$unformatted" ]; then echo "gofmt needed:"; echo "$unformatted"; exit 1; fi
go vet -tags rocksdb,wiredtiger ./...
go test -tags rocksdb,wiredtiger -count=1 -timeout 30m ./... "$@"
# The packages whose tests exercise concurrency (interval clock and
# recorders, workers of every workload, the kv engines' shared state), again
# under the race detector.
go test -race -tags rocksdb,wiredtiger -count=1 -timeout 30m ./internal/measure/... ./internal/workload/... ./internal/engine/kv/... "$@"
