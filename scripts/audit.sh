#!/usr/bin/env bash
# The audit (docs/metrics.md, "The audit"; design §15): runs rumbench on
# pebble, sqlite and the local PostgreSQL with sysstat's iostat and pidstat
# beside it, and for the server a once-a-second reading of the server
# tree's cumulative counters, then prints per engine and step
# figure | rumbench | independent | ratio. Exits 1 when a judged figure
# differs by more than the tolerance, 2 when the audit could not run.
#
# Usage: scripts/audit.sh               (every audited step >= 15 s; 6 to 9 minutes on a 2-core VM)
#        AUDIT_QUICK=1 scripts/audit.sh (4-second steps, judged from 3 s: for trying the script)
#
# Settings (environment):
#   AUDIT_ENGINES        engines, comma list (pebble,sqlite,postgres)
#   AUDIT_STEPS          steps rumbench runs and the audit judges (l.i0,l.x,l.i1,qr100;
#                        the query steps need l.x's indexes)
#   AUDIT_ROWS_<ENGINE>  rows per client loaded by l.i0, e.g. AUDIT_ROWS_PEBBLE
#                        (pebble 24M, sqlite 6M, postgres 5M: l.i0 and l.x last >= 15 s
#                        on a 2-core VM; quick: 200k, 200k, 100k)
#   AUDIT_CLIENTS        clients (2)
#   AUDIT_CHURN_SECONDS  length of l.i1 (and l.i2) (20; quick 4)
#   AUDIT_QUERY_SECONDS  length of the query steps (20; quick 4)
#   AUDIT_MIN_SECONDS    steps shorter than this are shown, not judged (15; quick 3)
#   AUDIT_TOLERANCE      largest relative difference that passes (0.10)
#   AUDIT_PAUSE          rumbench --step-pause between steps (3s), when the build has it
#   AUDIT_INTERVAL       rumbench --interval (1s)
#   AUDIT_DATA_DIR       where data dirs are made; must be on a disk, not tmpfs (/var/tmp)
#   AUDIT_OUT            where the bundles, the tools' logs and the tables are kept
#                        (audit-results/<UTC time>)
#   AUDIT_DSN            PostgreSQL server (postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable)
#   AUDIT_DATABASE       database rumbench creates and drops there (rumbench_audit)
set -euo pipefail
cd "$(dirname "$0")/.."
export LC_ALL=C

quick=${AUDIT_QUICK:-0}
if [ "$quick" = 1 ]; then
	d_rows_pebble=200000 d_rows_sqlite=200000 d_rows_postgres=100000
	d_churn=4 d_query=4 d_min=3
else
	d_rows_pebble=24000000 d_rows_sqlite=6000000 d_rows_postgres=5000000
	d_churn=20 d_query=20 d_min=15
fi
engines=${AUDIT_ENGINES:-pebble,sqlite,postgres}
steps=${AUDIT_STEPS:-l.i0,l.x,l.i1,qr100}
clients=${AUDIT_CLIENTS:-2}
churn=${AUDIT_CHURN_SECONDS:-$d_churn}
query=${AUDIT_QUERY_SECONDS:-$d_query}
min_seconds=${AUDIT_MIN_SECONDS:-$d_min}
tolerance=${AUDIT_TOLERANCE:-0.10}
pause=${AUDIT_PAUSE:-3s}
interval=${AUDIT_INTERVAL:-1s}
data_root=${AUDIT_DATA_DIR:-/var/tmp}
out=${AUDIT_OUT:-audit-results/$(date -u +%Y%m%d-%H%M%S)}
dsn=${AUDIT_DSN:-postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable}
database=${AUDIT_DATABASE:-rumbench_audit}

rows_for() {
	local e=$1 v
	v="AUDIT_ROWS_${e^^}"
	if [ -n "${!v:-}" ]; then echo "${!v}"; return; fi
	v="d_rows_$e"
	echo "${!v:-1000000}"
}

# Everything started here is stopped by its pid on the way out; the data
# dirs and the database go too.
bg=()
data=""
work=""
cleanup() {
	local p
	for p in "${bg[@]}"; do kill "$p" 2>/dev/null || true; done
	for p in "${bg[@]}"; do wait "$p" 2>/dev/null || true; done
	bg=()
	[ -n "$data" ] && rm -rf "$data"
	[ -n "$work" ] && rm -rf "$work"
	if [[ ",$engines," == *,postgres,* ]]; then
		psql "$dsn" -qAtc "DROP DATABASE IF EXISTS \"$database\" WITH (FORCE)" >/dev/null 2>&1 || true
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

echo "audit: building bin/rumbench and bin/rumbench-audit; sysstat" >&2
scripts/build.sh
go build -o bin/rumbench-audit ./cmd/rumbench-audit
scripts/deps.sh sysstat

if [ "$(stat -f -c %T "$data_root")" = tmpfs ]; then
	echo "audit: AUDIT_DATA_DIR $data_root is tmpfs: nothing would reach a device; give a directory on a disk" >&2
	exit 2
fi
data=$(mktemp -d "$data_root/rumbench-audit.XXXXXX")
# Bundles and the tools' logs go to tmpfs while measuring, so their own
# writes are not on the audited device; they are copied to $out at the end.
if [ "$(stat -f -c %T /dev/shm 2>/dev/null)" = tmpfs ]; then
	work=$(mktemp -d /dev/shm/rumbench-audit.XXXXXX)
else
	work=$(mktemp -d "$data_root/rumbench-audit-logs.XXXXXX")
fi
mkdir -p "$out"
report="$out/audit.md"

device_of() {
	local src
	src=$(findmnt -n -o SOURCE --target "$1" | head -1)
	lsblk -no KNAME "$src" 2>/dev/null | head -1
}

step_pause=()
if bin/rumbench run --help 2>/dev/null | grep -q -- '--step-pause'; then
	step_pause=(--step-pause "$pause")
else
	pause="none (this build has no --step-pause: boundary samples are split between adjacent steps)"
fi

{
	echo "# rumbench audit"
	echo
	echo "date: $(date -u '+%Y-%m-%d %H:%M:%S UTC'); commit $(git rev-parse --short HEAD)$( [ -n "$(git status --porcelain --untracked-files=no)" ] && echo ' (dirty)'); $(iostat -V 2>&1 | head -1)"
	echo "host: $(nproc) cores, $(uname -r); uptime at start: $(uptime)"
	echo "sizes: $clients clients; l.i0 rows per client: $(for e in ${engines//,/ }; do printf '%s %s ' "$e" "$(rows_for "$e")"; done); l.i1 --churn-seconds $churn; query steps --query-seconds $query; --interval $interval; pause between steps: $pause"
	echo "judged: steps of ${min_seconds}s or more; tolerance $(awk "BEGIN{print $tolerance*100}")%"
} | tee "$report"

status=0
for e in ${engines//,/ }; do
	w="$work/$e"
	mkdir -p "$w"
	rows=$(rows_for "$e")
	args=(run --quiet --engine "$e" --steps "$steps" --clients "$clients" --rows "$rows"
		--churn-seconds "$churn" --query-seconds "$query" --interval "$interval"
		--out "$w/bundle" "${step_pause[@]}")
	server_root=""
	case "$e" in
	postgres)
		pgdata=$(psql "$dsn" -Atc 'show data_directory')
		server_root=$(head -1 "$pgdata/postmaster.pid" 2>/dev/null || true)
		if [ -z "$server_root" ]; then
			# Not readable here: the oldest postgres process is the postmaster.
			server_root=$(pgrep -o -x postgres || true)
		fi
		if [ -z "$server_root" ]; then
			echo "audit: postgres: no postmaster pid (from $pgdata/postmaster.pid or ps)" >&2
			exit 2
		fi
		server_user=$(ps -o user= -p "$server_root" | tr -d ' ')
		dev=$(device_of "$pgdata")
		args+=(--dsn "$dsn" --database "$database")
		;;
	*)
		mkdir -p "$data/$e"
		dev=$(device_of "$data/$e")
		args+=(--data-dir "$data/$e")
		;;
	esac
	if [ -z "$dev" ]; then
		echo "audit: $e: no block device under the data dir" >&2
		exit 2
	fi
	load_before=$(uptime)
	echo "audit: $e: bin/rumbench ${args[*]}" >&2
	bin/rumbench-audit stamp -o "$w/iostat.log" -- env S_TIME_FORMAT=ISO iostat -dkx -t -y 1 "$dev" &
	bg+=($!)
	if [ -n "$server_root" ]; then
		bin/rumbench-audit stamp -o "$w/pidstat-server.log" -- pidstat -u -d -h -U "$server_user" 1 &
		bg+=($!)
		bin/rumbench-audit proctree -pid "$server_root" -o "$w/proctree.log" &
		bg+=($!)
	fi
	# rumbench starts 2 s after its pid exists, so pidstat watches it from
	# before its first step, and stays a zombie 3 s after it exits, so
	# pidstat reads its last second too.
	bin/rumbench-audit run -pidfile "$w/rumbench.pid" -delay 2s -linger 3s -- bin/rumbench "${args[@]}" >"$w/rumbench.out" 2>&1 &
	runner=$!
	bg+=("$runner")
	for _ in $(seq 100); do [ -s "$w/rumbench.pid" ] && break; sleep 0.01; done
	rb=$(cat "$w/rumbench.pid")
	bin/rumbench-audit stamp -o "$w/pidstat-client.log" -- pidstat -u -d -h -p "$rb" 1 &
	bg+=($!)
	rc=0
	wait "$runner" || rc=$?
	for p in "${bg[@]}"; do kill "$p" 2>/dev/null || true; done
	for p in "${bg[@]}"; do wait "$p" 2>/dev/null || true; done
	bg=()
	load_after=$(uptime)
	# The data go now, and their discards reach the device before the
	# next engine starts.
	rm -rf "${data:?}/$e"
	sync -f "$data"
	sleep 2
	cmp=(compare -bundle "$w/bundle/$e" -iostat "$w/iostat.log" -device "$dev" -client "$w/pidstat-client.log"
		-tolerance "$tolerance" -min-seconds "$min_seconds")
	if [ -n "$server_root" ]; then
		cmp+=(-server "$w/pidstat-server.log" -server-root "$server_root" -tree "$w/proctree.log")
	fi
	{
		echo
		echo "## $e"
		echo
		echo "command: bin/rumbench ${args[*]}"
		echo "device: $dev; uptime before: $load_before; after: $load_after"
		if [ -n "$server_root" ]; then echo "server root: pid $server_root (user $server_user)"; fi
	} | tee -a "$report"
	if [ "$rc" != 0 ]; then
		echo "rumbench failed (exit $rc): $(tail -3 "$w/rumbench.out")" | tee -a "$report"
		status=2
	fi
	crc=2
	if [ -f "$w/bundle/$e/run.json" ]; then
		crc=0
		bin/rumbench-audit "${cmp[@]}" >"$w/table.md" || crc=$?
		tee -a "$report" <"$w/table.md"
	fi
	case "$crc" in
	0) echo "$e: every judged figure within the tolerance" | tee -a "$report" ;;
	1) echo "$e: FAIL: a judged figure differs by more than the tolerance" | tee -a "$report"; [ "$status" = 0 ] && status=1 ;;
	*) echo "$e: the comparison could not run (exit $crc)" | tee -a "$report"; status=2 ;;
	esac
	if [ "$e" = postgres ]; then
		psql "$dsn" -qAtc "DROP DATABASE IF EXISTS \"$database\" WITH (FORCE)" >/dev/null 2>&1 || true
	fi
	cp -r "$w" "$out/"
done
echo | tee -a "$report"
echo "uptime at end: $(uptime)" | tee -a "$report"
echo "audit: table in $report; bundles and the tools' logs in $out/<engine>/" >&2
exit "$status"
