#!/usr/bin/env bash
# kube-e2e.sh: rumbench's Indexed Jobs end to end on the cluster that
# scripts/kube-up.sh brought up, typed as a user would type them, each
# compared with the same work run here without Kubernetes. Exit 0 only when
# every check held; each check prints one PASS or FAIL line.
#
#  1. A sweep of 4 cells (--indexes 0,1 x --pad-sizes 20,256; each cell
#     runs both engines, pebble and sqlite) as one Indexed Job. One pod is
#     killed (SIGKILL, as the OOM killer would) in the middle of its sqlite
#     load: Kubernetes retries that index alone (backoffLimitPerIndex),
#     the retry keeps the engine that had finished, moves the unfinished
#     bundle aside and runs it again. A tools pod with the volume at
#     /results runs `rumbench sweep collect`; `kubectl cp` brings the sweep
#     here, where `rumbench report` reads it. Same rows and steps as the
#     local sweep, rates within a factor of 2.
#  2. One run of 4 clients over 2 shards (--shards 2: two pods of one Job)
#     against the local PostgreSQL (127.0.0.1:5432, trust auth). The pods
#     run with --host-network: PostgreSQL here listens on 127.0.0.1 only,
#     which only the node's own network namespace reaches. `rumbench merge`
#     and `rumbench report` in the tools pod; the merged bundle has the
#     local run's rows per step and rates within a factor of 2.
#  3. The same sharded run with shard 1's pod killed mid-step: no retry
#     (backoffLimitPerIndex 0), shard 0 stops at its next barrier naming
#     shard 1, the Job fails with the indexes that failed, and merge marks
#     the result incomplete.
#  4. A run of the cgo engine rocksdb as a Job of one pod: the image carries
#     librocksdb and what it links (scripts/kube-image.sh copies what ldd
#     resolves).
#
# Needs: scripts/kube-up.sh's cluster; the local PostgreSQL. Uses its own
# database (rbk8s_e2e) and drops it at the end. Takes ~3-4 minutes.
set -uo pipefail
cd "$(dirname "$0")/.."
KUBE_BUILD=${KUBE_BUILD:-/work/.kube-build}
S=${KUBE_STATE:-$KUBE_BUILD/run}
export KUBECONFIG=$S/admin.kubeconfig PATH=$KUBE_BUILD/bin:$PATH
W=$S/e2e
PV=$S/pv/results # the volume's directory on the node (hostPath PV)
DSN=${KUBE_E2E_DSN:-postgres://postgres@127.0.0.1:5432/test?sslmode=disable}
DB=rbk8s_e2e
RB=bin/rumbench
t0=$(date +%s)
say() { echo "kube-e2e: [$(($(date +%s) - t0)) s] $*"; }
failed=0
pass() { echo "PASS: $*"; }
fail() { echo "FAIL: $*"; failed=$((failed + 1)); }
check() { # description, command...
	local d=$1
	shift
	if "$@"; then pass "$d"; else fail "$d"; fi
}
die() { echo "kube-e2e: $*" >&2; exit 1; }

kubectl get --raw /readyz >/dev/null 2>&1 || die "no cluster: run scripts/kube-up.sh first"
psql "$DSN" -qAtc 'select 1' >/dev/null 2>&1 || die "PostgreSQL not reachable at $DSN"
rm -rf "$W"
mkdir -p "$W"

say "building bin/rumbench and its image, importing it into every node's containerd"
# With the cgo engine rocksdb built in: its librocksdb and the libraries
# that links go into the image (step 4 runs it in a pod).
export RUMBENCH_BUILD_TAGS=${RUMBENCH_BUILD_TAGS:-rocksdb}
IMG=$(scripts/kube-image.sh rumbench "$W/rumbench.tar") || die "image build failed"
for sock in "$S"/node-*/containerd/containerd.sock; do
	ctr -a "$sock" -n k8s.io images import "$W/rumbench.tar" >/dev/null || die "import into $sock failed"
done
rm -f "$W/rumbench.tar"
say "image $IMG"
NODES=$(kubectl get nodes -o name | wc -l)

# The tools pod: the volume's root at /results, to run collect and merge
# and to copy results out, as a user without access to the volume would.
tools_up() {
	kubectl delete pod rumbench-tools --ignore-not-found --grace-period=1 >/dev/null 2>&1
	kubectl apply -f - >/dev/null <<EOF
apiVersion: v1
kind: Pod
metadata: {name: rumbench-tools}
spec:
  restartPolicy: Never
  containers:
  - name: rumbench
    image: $IMG
    command: [sleep, "3600"]
    volumeMounts: [{name: results, mountPath: /results}]
  volumes:
  - name: results
    persistentVolumeClaim: {claimName: rumbench-results}
EOF
	kubectl wait --for=condition=Ready pod/rumbench-tools --timeout=60s >/dev/null
}
# job_wait NAME SECONDS: until the Job is Complete or Failed; prints which.
job_wait() {
	local j=$1 secs=$2 c
	for _ in $(seq "$secs"); do
		c=$(kubectl get job "$j" -o jsonpath='{range .status.conditions[?(@.status=="True")]}{.type}{" "}{end}' 2>/dev/null)
		case " $c " in
		*" Complete "*) echo Complete; return 0 ;;
		*" Failed "*) echo Failed; return 0 ;;
		esac
		sleep 1
	done
	echo Timeout
}
# pod_of JOB INDEX [PHASE]: the name of the index's pod (the running one).
pod_of() {
	kubectl get pods -l "job-name=$1,batch.kubernetes.io/job-completion-index=$2" \
		${3:+--field-selector=status.phase=$3} -o jsonpath='{.items[0].metadata.name}' 2>/dev/null
}
# kill_pod POD: SIGKILL the pod's rumbench process on its node, as the
# OOM killer or a crash would (the pod fails with exit code 137).
kill_pod() {
	local id sock pid
	id=$(kubectl get pod "$1" -o jsonpath='{.status.containerStatuses[0].containerID}')
	id=${id#containerd://}
	for sock in "$S"/node-*/containerd/containerd.sock; do
		pid=$(ctr -a "$sock" -n k8s.io tasks ls 2>/dev/null | awk -v id="$id" '$1 == id {print $2}')
		if [ -n "$pid" ]; then
			kill -KILL "$pid" && echo "$pid"
			return 0
		fi
	done
	return 1
}
# field FILE EXPR: a value from a JSON file (python3's json).
field() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"; }

tools_up || die "tools pod did not start"

#
# 1. The sweep.
#
say "1. sweep: 4 cells (indexes 0,1 x pad 20,256), engines pebble,sqlite, as one Indexed Job"
SWEEP=(--engine pebble,sqlite --indexes 0,1 --pad-sizes 20,256 --rows 1000000)
set -x
$RB sweep "${SWEEP[@]}" --out /results/sweep-e2e \
	--kubernetes "$W/sweep-job.yaml" --pvc rumbench-results --parallelism 1 --image "$IMG" --job-name rb-sweep
kubectl apply -f "$W/sweep-job.yaml"
{ set +x; } 2>/dev/null
# Kill cell 3's pod (x1-pad256-c1) once its pebble run is done and its
# sqlite load has started.
killed=""
for _ in $(seq 600); do
	p=$(pod_of rb-sweep 3 Running)
	if [ -n "$p" ] && kubectl logs "$p" 2>/dev/null | grep -q "run 1/2 x1-pad256-c1 pebble done"; then
		sleep 1
		if pid=$(kill_pod "$p"); then
			killed=$p
			say "killed pod $p (cell 3, in sqlite's l.i0x): SIGKILL to pid $pid on the node"
		fi
		break
	fi
	sleep 0.2
done
check "a pod of cell 3 was killed mid-step" test -n "$killed"
st=$(job_wait rb-sweep 300)
say "sweep Job: $st"
kubectl get pods -l job-name=rb-sweep -o wide
kubectl get job rb-sweep -o jsonpath='{.status}{"\n"}'
echo
check "sweep Job Complete" test "$st" = Complete
check "sweep Job counted one failed pod (the killed one) and 4 completed indexes" \
	test "$(kubectl get job rb-sweep -o jsonpath='{.status.failed}/{.status.completedIndexes}')" = "1/0-3"
if [ -n "$killed" ]; then
	check "the killed pod ended Failed with exit code 137" \
		test "$(kubectl get pod "$killed" -o jsonpath='{.status.phase}/{.status.containerStatuses[0].state.terminated.exitCode}')" = "Failed/137"
	retry=$(pod_of rb-sweep 3 Succeeded)
	echo "--- the retry's log (pod $retry):"
	kubectl logs "$retry" | grep -v "^rumbench: metrics: WARNING" | tail -8
	kubectl logs "$retry" >"$W/retry.log" 2>&1
	check "the retry kept cell 3's finished pebble run and ran sqlite again" \
		sh -c "grep -q '1 of 2 runs already finished' $W/retry.log && ! grep -q 'x1-pad256-c1 pebble done' $W/retry.log && grep -q 'x1-pad256-c1 sqlite done' $W/retry.log"
	check "the killed sqlite bundle was moved aside, not merged into the cell" \
		sh -c "ls -d $PV/sweep-e2e/x1-pad256-c1/sqlite.unfinished-* >/dev/null 2>&1"
fi
echo "--- rumbench sweep collect in the tools pod:"
kubectl exec rumbench-tools -- rumbench sweep collect /results/sweep-e2e >"$W/collect.out" 2>&1
rc=$?
head -3 "$W/collect.out"
check "sweep collect: every cell finished (exit $rc)" test $rc = 0
kubectl cp rumbench-tools:/results/sweep-e2e "$W/sweep-cluster" >/dev/null 2>&1
check "kubectl cp brought the sweep here" test -f "$W/sweep-cluster/sweep.json"
$RB report "$W/sweep-cluster" >"$W/sweep-cluster.report" 2>&1
check "rumbench report reads the copied sweep" test $? = 0

say "1. the same sweep here, without Kubernetes"
$RB sweep "${SWEEP[@]}" --out "$W/sweep-local" >"$W/sweep-local.out" 2>&1
check "local sweep ran" test $? = 0
python3 - "$W/sweep-cluster" "$W/sweep-local" <<'EOF' || fail "sweep on the cluster = sweep here (rows, steps; rates within 2x)"
import json, os, sys
a, b = sys.argv[1], sys.argv[2]
bad = 0
print("%-14s %-7s %-6s %10s %10s %12s %12s %6s" % ("cell", "engine", "step", "rows(k8s)", "rows(here)", "ips(k8s)", "ips(here)", "ratio"))
for cell in sorted(d for d in os.listdir(b) if os.path.isdir(os.path.join(b, d))):
    for eng in ("pebble", "sqlite"):
        ra = json.load(open(os.path.join(a, cell, eng, "run.json")))
        rb = json.load(open(os.path.join(b, cell, eng, "run.json")))
        if ra.get("complete") is not True or ra.get("steps") != rb.get("steps"):
            print("MISMATCH", cell, eng, "complete", ra.get("complete"), "steps", ra.get("steps"), rb.get("steps")); bad += 1
        for st in rb["steps"]:
            sa = json.load(open(os.path.join(a, cell, eng, "steps", st + ".json")))
            sb = json.load(open(os.path.join(b, cell, eng, "steps", st + ".json")))
            ia, ib = sa.get("inserted"), sb.get("inserted")
            fa, fb = sa.get("ips_avg") or 0, sb.get("ips_avg") or 0
            r = fa / fb if fb else 0
            print("%-14s %-7s %-6s %10s %10s %12.0f %12.0f %6.2f" % (cell, eng, st, ia, ib, fa, fb, r))
            if ia != ib or sa.get("complete") is not True or not (0.5 <= r <= 2):
                print("  ^ differs"); bad += 1
sys.exit(1 if bad else 0)
EOF
[ $? = 0 ] && pass "sweep on the cluster = sweep here (rows and steps equal; rates within 2x)"

#
# 2. The sharded run.
#
psql "$DSN" -qc "DROP DATABASE IF EXISTS $DB" >/dev/null 2>&1
RUN=(--engine postgres --dsn "$DSN" --database "$DB" --clients 4 --rows 200000 --churn-rows 50000
	--steps l.i0,l.x,l.i1,l.i2,qr100 --query-seconds 5)
say "2. run: 4 clients over 2 shards against PostgreSQL at 127.0.0.1:5432 (--host-network)"
set -x
$RB run "${RUN[@]}" --out /results/run-e2e --shards 2 \
	--kubernetes "$W/run-job.yaml" --pvc rumbench-results --image "$IMG" --host-network --job-name rb-run
kubectl apply -f "$W/run-job.yaml"
{ set +x; } 2>/dev/null
st=$(job_wait rb-run 300)
say "run Job: $st"
kubectl get pods -l job-name=rb-run -o wide
check "sharded run Job Complete, both shards" test "$st/$(kubectl get job rb-run -o jsonpath='{.status.completedIndexes}')" = "Complete/0,1"
if [ "$NODES" -ge 2 ]; then
	check "the two shards ran on two nodes (the pods' anti-affinity)" \
		test "$(kubectl get pods -l job-name=rb-run -o jsonpath='{range .items[*]}{.spec.nodeName}{"\n"}{end}' | sort -u | wc -l)" = 2
fi
for i in 0 1; do
	echo "--- shard $i's last lines:"
	kubectl logs "$(pod_of rb-run $i)" | grep -v "^postgres " | tail -3
done
echo "--- rumbench merge and report in the tools pod:"
kubectl exec rumbench-tools -- rumbench merge /results/run-e2e/shard-0 /results/run-e2e/shard-1 --out /results/run-e2e/merged
check "merge of the two shards" test $? = 0
kubectl exec rumbench-tools -- rumbench report /results/run-e2e/merged >"$W/run-merged.report" 2>&1
check "rumbench report on the merged bundle" test $? = 0
sed -n '/verdict/,$p' "$W/run-merged.report"
kubectl cp rumbench-tools:/results/run-e2e/merged "$W/run-cluster" >/dev/null 2>&1

say "2. the same run here, one process, 4 clients"
psql "$DSN" -qc "DROP DATABASE IF EXISTS $DB" >/dev/null 2>&1
$RB run "${RUN[@]}" --out "$W/run-local" >"$W/run-local.out" 2>&1
check "local run ran" test $? = 0
python3 - "$W/run-cluster/postgres" "$W/run-local/postgres" <<'EOF' || fail "sharded run on the cluster = run here (rows per step; rates within 2x)"
import json, os, sys
a, b = sys.argv[1], sys.argv[2]
ra, rb = json.load(open(os.path.join(a, "run.json"))), json.load(open(os.path.join(b, "run.json")))
bad = 0
if ra.get("complete") is not True or ra["steps"] != rb["steps"]:
    print("MISMATCH complete", ra.get("complete"), "steps", ra["steps"], rb["steps"]); bad += 1
print("merged from", (ra.get("merged_from") or {}).get("count"), "shards")
print("%-6s %-8s %10s %10s %10s %10s %12s %12s %6s" % ("step", "op", "ins(k8s)", "ins(here)", "del(k8s)", "del(here)", "rate(k8s)", "rate(here)", "ratio"))
for st in rb["steps"]:
    sa = json.load(open(os.path.join(a, "steps", st + ".json")))
    sb = json.load(open(os.path.join(b, "steps", st + ".json")))
    # the step's headline rate; l.x (index builds): 1/seconds
    key = "qps_avg" if st.startswith("q") else "ips_avg"
    fa, fb = sa.get(key) or 0, sb.get(key) or 0
    if st == "l.x":
        key, fa, fb = "1/secs", 1 / sa["seconds"], 1 / sb["seconds"]
    r = fa / fb if fb else 0
    print("%-6s %-8s %10s %10s %10s %10s %12.1f %12.1f %6.2f" % (st, key, sa.get("inserted"), sb.get("inserted"), sa.get("deleted"), sb.get("deleted"), fa, fb, r))
    counted = not st.startswith("q")  # query steps are time-bounded
    if sa.get("complete") is not True or (counted and (sa.get("inserted") != sb.get("inserted") or sa.get("deleted") != sb.get("deleted"))) or not (0.5 <= r <= 2):
        print("  ^ differs"); bad += 1
sys.exit(1 if bad else 0)
EOF
[ $? = 0 ] && pass "sharded run on the cluster = run here (rows per step equal; rates within 2x)"

#
# 3. A shard killed mid-step.
#
psql "$DSN" -qc "DROP DATABASE IF EXISTS $DB" >/dev/null 2>&1
say "3. the sharded run again, shard 1's pod killed in qr100"
set -x
$RB run "${RUN[@]}" --query-seconds 20 --shard-timeout 10s --out /results/run-kill --shards 2 \
	--kubernetes "$W/run-kill-job.yaml" --pvc rumbench-results --image "$IMG" --host-network --job-name rb-run-kill
kubectl apply -f "$W/run-kill-job.yaml"
{ set +x; } 2>/dev/null
killed=""
for _ in $(seq 900); do
	p=$(pod_of rb-run-kill 1 Running)
	if [ -n "$p" ] && kubectl logs "$p" 2>/dev/null | grep -q "qr100 .*[0-9]s left"; then
		if pid=$(kill_pod "$p"); then
			killed=$p
			say "killed pod $p (shard 1, in qr100): SIGKILL to pid $pid"
		fi
		break
	fi
	sleep 0.2
done
check "shard 1's pod was killed mid-step" test -n "$killed"
st=$(job_wait rb-run-kill 180)
say "run Job: $st"
kubectl get pods -l job-name=rb-run-kill -o wide
kubectl get job rb-run-kill -o jsonpath='{.status}{"\n"}'
echo
check "the Job failed, shard 1 not retried (one pod for index 1)" \
	test "$st/$(kubectl get pods -l job-name=rb-run-kill,batch.kubernetes.io/job-completion-index=1 -o name | wc -l)" = "Failed/1"
echo "--- shard 0's last lines:"
kubectl logs "$(pod_of rb-run-kill 0)" | grep -v "^postgres " | tail -4
check "shard 0 stopped naming shard 1" sh -c "kubectl logs $(pod_of rb-run-kill 0) | grep -q 'shard 1/2'"
echo "--- rumbench merge of what the shards left:"
kubectl exec rumbench-tools -- rumbench merge /results/run-kill/shard-0 /results/run-kill/shard-1 --out /results/run-kill/merged
rc=$?
if [ $rc = 0 ]; then
	c=$(field "$PV/run-kill/merged/postgres/run.json" 'd.get("complete")')
	check "merge marked the killed run incomplete (complete: $c)" test "$c" = False
else
	pass "merge refused the killed run's shards (exit $rc)"
fi

#
# 4. One pod, a cgo engine.
#
say "4. one pod running rocksdb (a cgo engine: librocksdb.so from the image)"
set -x
$RB run --engine rocksdb --clients 1 --rows 200000 --steps l.i0,l.x --out /results/run-rocksdb \
	--kubernetes "$W/rocksdb-job.yaml" --pvc rumbench-results --image "$IMG" --job-name rb-rocksdb
kubectl apply -f "$W/rocksdb-job.yaml"
{ set +x; } 2>/dev/null
st=$(job_wait rb-rocksdb 120)
kubectl logs "$(pod_of rb-rocksdb 0)" | tail -3
check "the rocksdb pod completed its run (Job $st, 200000 rows loaded)" \
	test "$st/$(field "$PV/run-rocksdb/rocksdb/run.json" 'd.get("complete")')/$(field "$PV/run-rocksdb/rocksdb/steps/l.i0.json" 'd.get("inserted")')" = "Complete/True/200000"

# Clean up: the Jobs and pods (their results stay on the volume), our database.
kubectl delete job rb-sweep rb-run rb-run-kill rb-rocksdb --ignore-not-found >/dev/null 2>&1
kubectl delete pod rumbench-tools --grace-period=1 --ignore-not-found --timeout=60s >/dev/null 2>&1 ||
	echo "kube-e2e: the tools pod was not deleted within 60 s (kubectl describe pod rumbench-tools); kube-down.sh removes it"
psql "$DSN" -qc "DROP DATABASE IF EXISTS $DB" >/dev/null 2>&1
say "done: $failed check(s) failed; results on the volume in $PV, local ones in $W"
[ "$failed" = 0 ]
