#!/bin/bash
# rumbench against the reference Python client of the insert benchmark
# (issue 39): client CPU per inserted row (l.i0, l.i1) and per query (qr100,
# qp100) of iibench.py (bench/ibench/iibench.py in github.com/mdcallag/mytools,
# which you supply: this project does not contain it) and of the rumbench
# binary, on the same table shape, against the local PostgreSQL (psycopg2) and
# MariaDB (MySQLdb), alternating the two clients every round.
#
#   bash scripts/pyref.sh /path/to/iibench.py      (or IIBENCH_PY=/path/...)
#
# iibench.py runs step by step with the flags of the insert benchmark's
# published scripts (bench/ibench/iq.sh and np.sh): l.i0 loads without
# secondary indexes (100 rows per commit), l.x adds the 3 indexes, l.i1
# inserts with a deleter (50 rows per commit), qr100/qp100 run one query
# process (range queries / PK queries) beside a writer and a deleter paced at
# 100 rows/s; PostgreSQL with prepared queries as np.sh runs it. Its client
# CPU is user+sys of all its processes (getrusage of the reaped children); the
# "net" column subtracts its fixed cost (interpreter start, imports, forks,
# the 4 MB random buffer), measured by a one-batch load each round. rumbench's
# figure is client_cpu_us_per_op of its step summary (sampler excluded), the
# "gross" one adds the sampler back. MySQLdb connects through the Unix socket
# (iibench.py has no TCP switch), so rumbench uses the socket there too.
#
# Needs python3 with psycopg2 and MySQLdb (Debian: python3-psycopg2,
# python3-mysqldb), psql, mysql and jq. Settings: PYREF_ENGINES
# (postgres,innodb), PYREF_ROUNDS (3), PYREF_ROWS (200000), PYREF_CHURN (l.i1
# rows, 40000), PYREF_QUERY_SECONDS (20), PYREF_INTERVAL (rumbench's
# --interval, 1s), PYREF_PYTHON (/usr/bin/python3), PYREF_BIN (a rumbench
# binary; default: built from this checkout), PYREF_PG_HOST (127.0.0.1),
# PYREF_MY_SOCKET (/run/mysqld/mysqld.sock), PYREF_OUT (results directory).
# Databases rb_pyref_pg_<pid> (PostgreSQL), rb_pyref_<pid> (MariaDB) and
# rb_pyref_bin_<pid> are created and dropped.
set -euo pipefail
cd "$(dirname "$0")/.."

ib=${1:-${IIBENCH_PY:-}}
if [ -z "$ib" ] || [ ! -f "$ib" ]; then
	echo "pyref.sh: give the path of iibench.py (from github.com/mdcallag/mytools, bench/ibench) as argument or IIBENCH_PY" >&2
	exit 2
fi
py=${PYREF_PYTHON:-/usr/bin/python3}
engines=${PYREF_ENGINES:-postgres,innodb}
rounds=${PYREF_ROUNDS:-3}
rows=${PYREF_ROWS:-200000}
churn=${PYREF_CHURN:-40000}
qsecs=${PYREF_QUERY_SECONDS:-20}
interval=${PYREF_INTERVAL:-1s}
pghost=${PYREF_PG_HOST:-127.0.0.1}
mysock=${PYREF_MY_SOCKET:-/run/mysqld/mysqld.sock}
out=${PYREF_OUT:-$(mktemp -d "${TMPDIR:-/tmp}/rumbench-pyref.XXXXXX")}
mkdir -p "$out"
pgdb=rb_pyref_pg_$$
mydb=rb_pyref_$$
bindb=rb_pyref_bin_$$
for e in ${engines//,/ }; do
	case $e in
	postgres) "$py" -c 'import psycopg2' ;;
	innodb) "$py" -c 'import MySQLdb' ;;
	*)
		echo "pyref.sh: engine $e is not postgres or innodb" >&2
		exit 2
		;;
	esac
done
bin=${PYREF_BIN:-}
if [ -z "$bin" ]; then
	bin=$out/rumbench
	go build -o "$bin" ./cmd/rumbench
fi

pgsql() { psql -h "$pghost" -U postgres -d postgres -qAtc "$1"; }
mysql_() { mysql -uroot -S "$mysock" -e "$1"; }
cleanup() {
	case ,$engines, in *,postgres,*) pgsql "drop database if exists $pgdb" || true ;; esac
	case ,$engines, in *,innodb,*) mysql_ "drop database if exists $mydb" || true ;; esac
}
trap cleanup EXIT

load1() { cut -d' ' -f1 /proc/loadavg; }
res=$out/results.tsv
printf 'round\tengine\tclient\tstep\tops\tcpu_us\tus_per_op\tus_per_op_gross\tload1\n' >"$res"

# rusage FILE CMD...: runs CMD and writes the user and system CPU seconds of
# it and every process it reaped (getrusage's µs, not time(1)'s 10 ms).
rusage='import resource, subprocess, sys
rc = subprocess.call(sys.argv[2:])
ru = resource.getrusage(resource.RUSAGE_CHILDREN)
open(sys.argv[1], "w").write("%.6f %.6f\n" % (ru.ru_utime, ru.ru_stime))
sys.exit(rc)'

# py ENGINE ROUND STEP FLAGS...: one iibench.py invocation, timed.
pystep() {
	local e=$1 r=$2 step=$3
	shift 3
	local conn
	if [ "$e" = postgres ]; then
		conn=(--dbms=postgres --db_host="$pghost" --db_user=postgres --db_password= --db_name="$pgdb" --use_prepared_query)
	else
		conn=(--dbms=mysql --db_user=root --db_password= --db_name="$mydb" --db_socket="$mysock" --engine=innodb --unique_checks=1 --bulk_load=0)
	fi
	local log=$out/py.$e.$r.$step
	local l
	l=$(load1)
	# iibench.py writes its o.pgid.* files into the working directory.
	(cd "$out" && "$py" -c "$rusage" "$log.time" "$py" "$ib" "${conn[@]}" --secs_per_report=1 \
		--data_length_min=10 --data_length_max=20 --seed=$((1000 + r)) "$@" >"$log.out" 2>&1) || {
		echo "pyref.sh: iibench.py $step on $e failed, see $log.out" >&2
		exit 1
	}
	local cpu ops
	cpu=$(awk '{ printf "%.0f", ($1 + $2) * 1e6 }' "$log.time")
	case $step in
	q*) ops=$(sed -n 's/^Query thread: \([0-9]*\) queries.*/\1/p' "$log.out") ;;
	*) ops=$(sed -n 's/^Totals: .* \([0-9]*\) rows, .*/\1/p' "$log.out") ;;
	esac
	echo "$cpu $ops $l"
}

runpy() {
	local e=$1 r=$2
	if [ "$e" = postgres ]; then
		pgsql "drop database if exists $pgdb"
		pgsql "create database $pgdb"
	else
		mysql_ "drop database if exists $mydb; create database $mydb"
	fi
	local fixed cpu ops l line
	# The fixed cost: one batch of 100 rows into a table of its own.
	line=$(pystep "$e" "$r" start --setup --table_name=pi0 --num_secondary_indexes=0 --max_rows=100 --rows_per_commit=100)
	read -r fixed _ _ <<<"$line"
	local -A flags=(
		[l.i0]="--setup --num_secondary_indexes=0 --max_rows=$rows --rows_per_commit=100"
		[l.x]="--secondary_at_end --num_secondary_indexes=3 --max_rows=100 --rows_per_commit=100"
		[l.i1]="--num_secondary_indexes=3 --max_rows=$churn --rows_per_commit=50 --delete_per_insert"
		[qr100]="--num_secondary_indexes=3 --max_rows=$((qsecs * 100)) --rows_per_commit=50 --inserts_per_second=100 --query_threads=1 --delete_per_insert"
		[qp100]="--num_secondary_indexes=3 --max_rows=$((qsecs * 100)) --rows_per_commit=50 --inserts_per_second=100 --query_threads=1 --delete_per_insert --query_pk_only"
	)
	for step in l.i0 l.x l.i1 qr100 qp100; do
		# shellcheck disable=SC2086 # the flags are words
		line=$(pystep "$e" "$r" "$step" --table_name=pi1 ${flags[$step]})
		read -r cpu ops l <<<"$line"
		[ "$step" = l.x ] && continue
		awk -v r="$r" -v e="$e" -v s="$step" -v ops="$ops" -v cpu="$cpu" -v fx="$fixed" -v l="$l" 'BEGIN {
			printf "%s\t%s\tpython\t%s\t%d\t%d\t%.2f\t%.2f\t%s\n", r, e, s, ops, cpu, (cpu - fx) / ops, cpu / ops, l }' >>"$res"
	done
}

runbin() {
	local e=$1 r=$2 dsn=()
	[ "$e" = innodb ] && dsn=(--dsn "root@unix($mysock)/")
	local dir=$out/bin.$e.$r l
	l=$(load1)
	"$bin" run --engine "$e" "${dsn[@]}" --clients 1 --rows "$rows" --churn-rows $((churn * 5 / 4)) \
		--query-seconds "$qsecs" --interval "$interval" --steps l.i0,l.x,l.i1,qr100,qp100 \
		--database "$bindb" --engine-opt drop_database=true --seed "$r" --out "$dir" --quiet >"$dir.log" 2>&1 || {
		echo "pyref.sh: rumbench on $e failed, see $dir.log" >&2
		exit 1
	}
	for step in l.i0 l.i1 qr100 qp100; do
		jq -r --arg r "$r" --arg e "$e" --arg s "$step" --arg l "$l" '.metrics as $m |
			($m.client_cpu_us / $m.client_cpu_us_per_op) as $ops |
			[$r, $e, "rumbench", $s, ($ops | round), $m.client_cpu_us, $m.client_cpu_us_per_op,
			 ((($m.client_cpu_us + $m.sampler_cpu_us) / $ops) * 100 | round / 100), $l] | @tsv' \
			"$dir/$e/steps/$step.json" >>"$res"
	done
}

for r in $(seq 1 "$rounds"); do
	for e in ${engines//,/ }; do
		echo "pyref.sh: round $r, $e (load $(load1))" >&2
		if [ $((r % 2)) = 1 ]; then
			runpy "$e" "$r"
			runbin "$e" "$r"
		else
			runbin "$e" "$r"
			runpy "$e" "$r"
		fi
	done
done

# Medians over the rounds; the ratio is rumbench's figure over Python's net one.
echo "client CPU per op (µs; median of $rounds rounds; per row for l.i*, per query for q*); results: $res"
printf '| engine | step | python net | python gross | rumbench | rumbench+sampler | rumbench / python net | load1 |\n'
printf '| --- | --- | ---: | ---: | ---: | ---: | ---: | --- |\n'
for e in ${engines//,/ }; do
	for s in l.i0 l.i1 qr100 qp100; do
		awk -F'\t' -v e="$e" -v s="$s" '
			function med(a, n,   i, j, t) {
				for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
				return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
			}
			$2 == e && $4 == s && $3 == "python" { pn[++np] = $7; pg[np] = $8; ld = ld " " $9 }
			$2 == e && $4 == s && $3 == "rumbench" { rn[++nr] = $7; rg[nr] = $8; ld = ld " " $9 }
			END {
				if (!np || !nr) exit
				a = med(pn, np); b = med(pg, np); c = med(rn, nr); d = med(rg, nr)
				printf "| %s | %s | %.2f | %.2f | %.2f | %.2f | %s |%s |\n", e, s, a, b, c, d, (a > 0 ? sprintf("%.2f", c / a) : "-"), ld
			}' "$res"
	done
done
