#!/usr/bin/env bash
# FerretDB for the mongodb engine's tests: a MongoDB wire-protocol server on
# SQLite (or PostgreSQL), built from the Go module proxy — Debian has no
# MongoDB server package.
#
#   scripts/ferretdb.sh build
#       builds FerretDB $FERRETDB_VERSION once into .cache/ferretdb/ (git-ignored)
#       and prints the binary's path; later calls reuse it.
#   scripts/ferretdb.sh start [sqlite|postgresql]
#       builds if needed, starts FerretDB on a free 127.0.0.1 port with its
#       data under a new temp dir, waits until it answers, and prints two
#       lines: the DSN (mongodb://127.0.0.1:PORT/) and the instance dir.
#       postgresql uses the local server ($RUMBENCH_PG_DSN or
#       postgres://postgres@127.0.0.1:5432/) in its own database
#       rumbench_ferretdb_PORT, dropped by stop.
#   scripts/ferretdb.sh stop DIR
#       stops the instance started with DIR and removes DIR.
#
# Exit status: 0 ok, 1 build or start failed, 3 the FerretDB module could not
# be downloaded (the tests skip on 3 unless RUMBENCH_REQUIRE_MONGO is set,
# and fail on 1 when CI or RUMBENCH_REQUIRE_SERVERS is set).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

# FerretDB 1.24.0: the last 1.x release the module proxy serves (1.24.1 is refused), the line with the SQLite and plain
# PostgreSQL backends (2.x needs PostgreSQL with Microsoft's DocumentDB
# extension, which Debian does not package).
FERRETDB_VERSION=v1.24.0
FERRETDB_MODULE=github.com/FerretDB/FerretDB
cache="$root/.cache/ferretdb"
bin="$cache/ferretdb-$FERRETDB_VERSION"

die() { # status, message
	echo "ferretdb.sh: $2" >&2
	exit "$1"
}

build() {
	if [ -x "$bin" ]; then
		echo "$bin"
		return 0
	fi
	command -v go >/dev/null || die 1 "go is not installed (see README: Go >= 1.26)"
	mkdir -p "$cache"
	local work
	work=$(mktemp -d "$cache/build.XXXXXX")
	# shellcheck disable=SC2064 # expand now: $work is local
	trap "chmod -R u+w '$work' 2>/dev/null; rm -rf '$work'" EXIT
	# Download the module through the proxy with a throwaway module, so no
	# go.mod of rumbench's is touched.
	(cd "$work" && go mod init rumbench.local/ferretdb-fetch >/dev/null 2>&1)
	local json
	if ! json=$(cd "$work" && GOFLAGS=-mod=mod go mod download -json "$FERRETDB_MODULE@$FERRETDB_VERSION" 2>&1); then
		local why
		why=$(printf '%s\n' "$json" | sed -n 's/.*"Error": "\(.*\)".*/\1/p' | head -1 | sed 's/\\n\\t/ /g; s/\\n/ /g')
		die 3 "cannot download $FERRETDB_MODULE $FERRETDB_VERSION from the Go module proxy: ${why:-$json}"
	fi
	local dir
	dir=$(printf '%s\n' "$json" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
	[ -d "$dir" ] || die 1 "go mod download gave no module directory: $json"
	# The module cache is read-only and the release's build/version/
	# version.txt is generated in FerretDB's own repository, so build a
	# writable copy with the file added (version.go embeds it).
	cp -r "$dir" "$work/src"
	chmod -R u+w "$work/src"
	echo "$FERRETDB_VERSION" >"$work/src/build/version/version.txt"
	echo "ferretdb.sh: building FerretDB $FERRETDB_VERSION into $cache (once; a few minutes on 2 cores)" >&2
	if ! (cd "$work/src" && GOTOOLCHAIN=local GOFLAGS=-mod=mod CGO_ENABLED=0 go build -trimpath -o "$work/ferretdb" ./cmd/ferretdb) >&2; then
		die 1 "building FerretDB $FERRETDB_VERSION failed (output above)"
	fi
	mv "$work/ferretdb" "$bin"
	echo "$bin"
}

# port_free PORT: nothing listens on PORT (from /proc/net/tcp{,6}).
port_free() {
	local hex
	hex=$(printf ':%04X' "$1")
	! awk -v p="$hex" '$4 == "0A" && substr($2, length($2) - 4) == p { found = 1 } END { exit !found }' /proc/net/tcp /proc/net/tcp6 2>/dev/null
}

start() {
	local backend=${1:-sqlite}
	build >/dev/null
	local dir port
	dir=$(mktemp -d "${TMPDIR:-/tmp}/rumbench-ferretdb.XXXXXX")
	for _ in $(seq 50); do
		port=$((20000 + RANDOM % 40000))
		port_free "$port" && break
	done
	local args=(--listen-addr="127.0.0.1:$port" --debug-addr=- --state-dir="$dir" --telemetry=disable --log-level=warn)
	case $backend in
	sqlite)
		mkdir -p "$dir/data"
		args+=(--handler=sqlite --sqlite-url="file:$dir/data/")
		;;
	postgresql)
		local pg=${RUMBENCH_PG_DSN:-postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable}
		local db="rumbench_ferretdb_$port"
		psql "$pg" -qc "CREATE DATABASE $db" >/dev/null || die 1 "cannot create PostgreSQL database $db at the local server"
		echo "$pg" >"$dir/pg_dsn"
		echo "$db" >"$dir/pg_db"
		local base=${pg%%\?*}
		args+=(--handler=postgresql --postgresql-url="${base%/*}/$db")
		;;
	*) die 1 "unknown backend $backend: use sqlite or postgresql" ;;
	esac
	"$bin" "${args[@]}" >"$dir/ferretdb.log" 2>&1 &
	echo $! >"$dir/pid"
	# Ready when the port accepts connections (bash's /dev/tcp, no client
	# needed); a process that died says why in its log.
	for _ in $(seq 100); do
		if ! kill -0 "$(cat "$dir/pid")" 2>/dev/null; then
			local log
			log=$(tail -5 "$dir/ferretdb.log" | tr '\n' ' ')
			stop "$dir" >/dev/null 2>&1 || true
			die 1 "FerretDB exited at start: $log"
		fi
		if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
			echo "mongodb://127.0.0.1:$port/"
			echo "$dir"
			echo "ferretdb.sh: FerretDB $FERRETDB_VERSION ($backend) pid $(cat "$dir/pid") on 127.0.0.1:$port; stop with: scripts/ferretdb.sh stop $dir" >&2
			return 0
		fi
		sleep 0.1
	done
	stop "$dir" >/dev/null 2>&1 || true
	die 1 "FerretDB did not accept connections on 127.0.0.1:$port within 10 s"
}

stop() {
	local dir=${1:-}
	[ -n "$dir" ] && [ -f "$dir/pid" ] || die 1 "usage: scripts/ferretdb.sh stop DIR (the directory start printed)"
	local pid
	pid=$(cat "$dir/pid")
	# Only the process this script started: its pid, checked by name.
	if [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = "ferretdb-$FERRETDB_VERSION" ] || grep -q ferretdb "/proc/$pid/comm" 2>/dev/null; then
		kill "$pid" 2>/dev/null || true
		for _ in $(seq 50); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.1
		done
		kill -9 "$pid" 2>/dev/null || true
	fi
	if [ -f "$dir/pg_db" ]; then
		psql "$(cat "$dir/pg_dsn")" -qc "DROP DATABASE IF EXISTS $(cat "$dir/pg_db")" >/dev/null || true
	fi
	rm -rf "$dir"
}

case ${1:-} in
build) build ;;
start) start "${2:-sqlite}" ;;
stop) stop "${2:-}" ;;
*) die 1 "usage: scripts/ferretdb.sh build | start [sqlite|postgresql] | stop DIR" ;;
esac
