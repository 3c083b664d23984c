#!/usr/bin/env bash
# FerretDB for the mongodb engine's tests: a MongoDB wire-protocol server on
# SQLite (or PostgreSQL), built from the Go module proxy — Debian has no
# MongoDB server package.
#
#   scripts/ferretdb.sh build
#       builds FerretDB $FERRETDB_VERSION once into .cache/ferretdb/ (git-ignored)
#       and prints the binary's path; later calls reuse it. The first build
#       downloads and compiles ~150 packages (minutes on 2 cores); after a
#       fresh clone it mostly relinks from Go's build cache.
#   scripts/ferretdb.sh start [sqlite|postgresql]
#       builds if needed, starts FerretDB on a free 127.0.0.1 port with its
#       state (and the SQLite files) under a new temp dir, waits until it
#       answers, and prints two lines: the DSN (mongodb://127.0.0.1:PORT/)
#       and the instance dir. postgresql stores the data in the local server
#       ($RUMBENCH_PG_DSN or postgres://postgres@127.0.0.1:5432/postgres) in
#       its own database rumbench_ferretdb_PORT, dropped by stop.
#       With FERRETDB_OWNER_PID set, a watchdog stops the instance (process,
#       temp dir, PostgreSQL database) as soon as that process is gone, so a
#       test binary that crashes or times out leaves nothing running.
#   scripts/ferretdb.sh stop DIR
#       stops the instance started with DIR and removes DIR.
#
# Exit status: 0 ok, 1 build or start failed, 2 usage, 3 the FerretDB module
# could not be downloaded (outside CI the tests skip on 3; with CI or
# RUMBENCH_REQUIRE_SERVERS set every failure fails them).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

# FerretDB 1.24.0: the last 1.x release the module proxy serves here (it
# refuses v1.24.1 with 403). 1.x is the line with the SQLite and plain
# PostgreSQL backends; 2.x needs PostgreSQL with Microsoft's DocumentDB
# extension, which Debian does not package.
FERRETDB_VERSION=v1.24.0
FERRETDB_MODULE=github.com/FerretDB/FerretDB
cache="$root/.cache/ferretdb"
bin="$cache/ferretdb-$FERRETDB_VERSION"
# No telemetry, whatever a state file says (FerretDB also honours the flag).
export DO_NOT_TRACK=1

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
	# One build at a time: test binaries of several packages (or a user
	# running start by hand) may ask at once; the others wait and reuse it.
	# The lock's fd is closed again before anything is started, or a
	# long-running FerretDB would inherit it and hold the lock.
	exec 9>"$cache/build.lock"
	flock 9
	if [ -x "$bin" ]; then
		exec 9>&-
		echo "$bin"
		return 0
	fi
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
	# version.txt is generated in FerretDB's own repository (version.go
	# panics without a "v..." version), so build a writable copy with the
	# file added. -buildvcs=false: the copy sits inside rumbench's git
	# checkout, whose commit is not FerretDB's.
	cp -r "$dir" "$work/src"
	chmod -R u+w "$work/src"
	echo "$FERRETDB_VERSION" >"$work/src/build/version/version.txt"
	echo "ferretdb.sh: building FerretDB $FERRETDB_VERSION into $cache (once; minutes on 2 cores the first time)" >&2
	if ! (cd "$work/src" && GOTOOLCHAIN=local GOFLAGS=-mod=mod CGO_ENABLED=0 go build -trimpath -buildvcs=false -o "$work/ferretdb" ./cmd/ferretdb) >&2; then
		die 1 "building FerretDB $FERRETDB_VERSION failed (output above)"
	fi
	mv "$work/ferretdb" "$bin"
	exec 9>&-
	echo "$bin"
}

# port_free PORT: nothing listens on PORT (from /proc/net/tcp{,6}).
port_free() {
	local hex
	hex=$(printf ':%04X' "$1")
	! awk -v p="$hex" '$4 == "0A" && substr($2, length($2) - 4) == p { found = 1 } END { exit !found }' /proc/net/tcp /proc/net/tcp6 2>/dev/null
}

# alive PID: the process exists and is not a zombie.
alive() {
	local state
	state=$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null) || return 1
	[ -n "$state" ] && [ "$state" != Z ]
}

# pg_url DSN DB: the PostgreSQL URL DSN with its database replaced by DB
# (query parameters such as sslmode kept).
pg_url() {
	local base=${1%%\?*} query=
	case $1 in *\?*) query="?${1#*\?}" ;; esac
	case $base in
	postgres://*/* | postgresql://*/*) base=${base%/*} ;;
	esac
	echo "$base/$2$query"
}

start() {
	local backend=${1:-sqlite}
	case $backend in
	sqlite | postgresql) ;;
	*) die 2 "unknown backend $backend: use sqlite or postgresql" ;;
	esac
	build >/dev/null
	local dir port
	dir=$(mktemp -d "${TMPDIR:-/tmp}/rumbench-ferretdb.XXXXXX")
	# Below the kernel's ephemeral range, so that no outgoing connection
	# (the tests open many) takes the port between the check and the bind.
	local eph
	eph=$(awk '{print $1}' /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || echo 32768)
	for _ in $(seq 50); do
		port=$((10000 + RANDOM % (eph - 10000)))
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
		case $pg in
		postgres://* | postgresql://*) ;;
		*) rm -rf "$dir"; die 2 "RUMBENCH_PG_DSN must be a postgres:// URL for FerretDB's postgresql backend" ;;
		esac
		local db="rumbench_ferretdb_$port"
		if ! psql "$pg" -qc "CREATE DATABASE $db" >/dev/null; then
			rm -rf "$dir"
			die 1 "cannot create PostgreSQL database $db at the local server (is PostgreSQL up? see RUMBENCH_PG_DSN)"
		fi
		echo "$pg" >"$dir/pg_dsn"
		echo "$db" >"$dir/pg_db"
		args+=(--handler=postgresql --postgresql-url="$(pg_url "$pg" "$db")")
		;;
	esac
	"$bin" "${args[@]}" </dev/null >"$dir/ferretdb.log" 2>&1 &
	local pid=$!
	echo "$pid" >"$dir/pid"
	if [ -n "${FERRETDB_OWNER_PID:-}" ]; then
		watchdog "$FERRETDB_OWNER_PID" "$pid" "$dir" </dev/null >/dev/null 2>&1 &
		echo $! >"$dir/watchdog.pid"
	fi
	# Ready when the port accepts connections (bash's /dev/tcp, no client
	# needed); a process that died says why in its log.
	for _ in $(seq 300); do
		if ! alive "$pid"; then
			local log
			log=$(tail -5 "$dir/ferretdb.log" | tr '\n' ' ')
			stop "$dir" >/dev/null 2>&1 || true
			die 1 "FerretDB exited at start: $log"
		fi
		if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
			echo "mongodb://127.0.0.1:$port/"
			echo "$dir"
			echo "ferretdb.sh: FerretDB $FERRETDB_VERSION ($backend) pid $pid on 127.0.0.1:$port; stop with: scripts/ferretdb.sh stop $dir" >&2
			return 0
		fi
		sleep 0.1
	done
	stop "$dir" >/dev/null 2>&1 || true
	die 1 "FerretDB did not accept connections on 127.0.0.1:$port within 30 s"
}

# watchdog OWNER PID DIR: stops the instance when OWNER is gone (and exits
# when the instance itself is gone).
watchdog() {
	while alive "$1" && alive "$2"; do
		sleep 0.5
	done
	if alive "$2" || [ -d "$3" ]; then
		rm -f "$3/watchdog.pid"
		stop "$3"
	fi
}

stop() {
	local dir=${1:-}
	[ -n "$dir" ] && [ -f "$dir/pid" ] || die 2 "usage: scripts/ferretdb.sh stop DIR (the directory start printed)"
	local pid wd
	pid=$(cat "$dir/pid")
	if [ -f "$dir/watchdog.pid" ]; then
		wd=$(cat "$dir/watchdog.pid")
		[ "$wd" != "${BASHPID:-$$}" ] && kill "$wd" 2>/dev/null || true
	fi
	# Only the process this script started: its pid, checked by name.
	if alive "$pid" && grep -q ferretdb "/proc/$pid/comm" 2>/dev/null; then
		kill "$pid" 2>/dev/null || true
		for _ in $(seq 50); do
			alive "$pid" || break
			sleep 0.1
		done
		kill -9 "$pid" 2>/dev/null || true
	fi
	if [ -f "$dir/pg_db" ]; then
		psql "$(cat "$dir/pg_dsn")" -qc "DROP DATABASE IF EXISTS $(cat "$dir/pg_db") WITH (FORCE)" >/dev/null || true
	fi
	rm -rf "$dir"
}

case ${1:-} in
build) build ;;
start) start "${2:-sqlite}" ;;
stop) stop "${2:-}" ;;
*) die 2 "usage: scripts/ferretdb.sh build | start [sqlite|postgresql] | stop DIR" ;;
esac
