#!/usr/bin/env bash
# kube-down.sh: tears down the cluster scripts/kube-up.sh started and
# checks that nothing of it is left: no process (control plane, kubelets,
# containerds, shims, pods' processes), no mount under its state directory,
# no pod network namespace, no bridge or veth, no iptables chain it made, no
# cgroup. The Kubernetes binaries and the buildah store stay in $KUBE_BUILD
# as a cache (KUBE_PURGE=1 removes them too). Touches nothing else: only
# processes whose pid it recorded, or whose command line or cgroup names its
# own state directory, and only links, network namespaces and chains that
# were not there before kube-up.sh ran.
# Exit status 0 when everything is gone, 1 when something is left (listed).
set -uo pipefail
cd "$(dirname "$0")/.."
KUBE_BUILD=${KUBE_BUILD:-/work/.kube-build}
S=${KUBE_STATE:-$KUBE_BUILD/run}
BIN=$KUBE_BUILD/bin
export PATH=$BIN:$PATH
t0=$(date +%s)
step() { echo "kube-down: [$(($(date +%s) - t0)) s] $*"; }

if [ ! -d "$S" ]; then
	echo "kube-down: no cluster state in $S: nothing to do"
	exit 0
fi
export KUBECONFIG=$S/admin.kubeconfig

alive() { kill -0 "$1" 2>/dev/null; }
stop_pid() { # pid: TERM, up to 10 s, then KILL
	local p=$1
	alive "$p" || return 0
	kill -TERM "$p" 2>/dev/null
	for _ in $(seq 50); do
		alive "$p" || return 0
		sleep 0.2
	done
	kill -KILL "$p" 2>/dev/null
	sleep 0.2
}
pid_of() { awk -v n="$1" '$2 == n {print $1}' "$S/pids" 2>/dev/null; }

# 1. Pods first, while the control plane and kubelets run: the kubelets
# stop their containers and the CNI plugin removes their network.
if [ -f "$KUBECONFIG" ] && kubectl get --raw /readyz >/dev/null 2>&1; then
	step "deleting the pods"
	kubectl delete jobs --all --wait=false >/dev/null 2>&1
	kubectl delete pods --all --grace-period=1 --timeout=60s >/dev/null 2>&1
fi

# 2. Kubelets, then what containerd still runs, then the containerds.
step "stopping kubelets"
for p in $(pid_of kubelet-1) $(pid_of kubelet-2); do stop_pid "$p"; done
for sock in "$S"/node-*/containerd/containerd.sock; do
	[ -S "$sock" ] || continue
	step "stopping containers of $(basename "$(dirname "$(dirname "$sock")")")"
	for id in $(ctr -a "$sock" -n k8s.io tasks ls -q 2>/dev/null); do
		ctr -a "$sock" -n k8s.io tasks kill -s KILL "$id" >/dev/null 2>&1
	done
	sleep 1
	for id in $(ctr -a "$sock" -n k8s.io tasks ls -q 2>/dev/null); do
		ctr -a "$sock" -n k8s.io tasks delete -f "$id" >/dev/null 2>&1
	done
	for id in $(ctr -a "$sock" -n k8s.io containers ls -q 2>/dev/null); do
		ctr -a "$sock" -n k8s.io containers delete "$id" >/dev/null 2>&1
	done
done
step "stopping containerd, scheduler, controller-manager, apiserver, etcd"
for n in containerd-1 containerd-2 kube-scheduler kube-controller-manager kube-apiserver etcd; do
	for p in $(pid_of "$n"); do stop_pid "$p"; done
done

# 3. Stragglers: a process whose command line names the state directory
# (containerd shims: -address $S/node-N/containerd/containerd.sock) or that
# sits in one of the kubelets' cgroups (a pod's process).
ours() {
	local p
	for p in /proc/[0-9]*; do
		p=${p#/proc/}
		[ "$p" = $$ ] && continue
		if { tr '\0' ' ' <"/proc/$p/cmdline"; } 2>/dev/null | grep -qF "$S/"; then
			echo "$p"
		elif grep -q ':/rumbench-kube-[12]\(/\|$\)' "/proc/$p/cgroup" 2>/dev/null; then
			echo "$p"
		fi
	done
}
for p in $(ours); do stop_pid "$p"; done

# 4. Mounts under the state directory (containers' rootfs, pods' volumes
# and shm), deepest first; then the pods' network namespaces.
step "unmounting"
for _ in 1 2 3; do
	m=$(awk -v s="$S/" 'index($5, s) == 1 {print $5}' /proc/self/mountinfo | sort -r)
	[ -z "$m" ] && break
	for d in $m; do umount "$d" 2>/dev/null || umount -l "$d" 2>/dev/null; done
done
for ns in $(ls /var/run/netns 2>/dev/null); do
	case "$ns" in cni-*) ;; *) continue ;; esac
	grep -qxF "$ns" "$S/netns.before" 2>/dev/null && continue
	ip netns delete "$ns" 2>/dev/null
done

# 5. Bridges (the veths went with their namespaces) and chains.
step "network: bridges, iptables chains"
for l in $(ip -o link show | awk -F': ' '{print $2}' | sed 's/@.*//'); do
	case "$l" in rbk[0-9]*) ;; *) continue ;; esac
	grep -qxF "$l" "$S/links.before" 2>/dev/null && continue
	# a veth still on the bridge (its pod's namespace is gone above)
	for v in $(ip -o link show master "$l" 2>/dev/null | awk -F': ' '{print $2}' | sed 's/@.*//'); do
		ip link delete "$v" 2>/dev/null
	done
	ip link delete "$l" 2>/dev/null
done
for ipt in iptables ip6tables; do
	for t in filter nat mangle raw; do
		new=$($ipt -t $t -S 2>/dev/null | awk '$1 == "-N" {print $2}' | while read -r c; do
			grep -qxF "$ipt $t $c" "$S/chains.before" 2>/dev/null || echo "$c"
		done)
		[ -z "$new" ] && continue
		for c in $new; do # rules jumping to a new chain, from any chain
			$ipt -t $t -S 2>/dev/null | grep -E -- "-j $c( |\$)" | sed 's/^-A /-D /' | while read -r rule; do
				eval "$ipt -t $t $rule" 2>/dev/null
			done
		done
		for c in $new; do $ipt -t $t -F "$c" 2>/dev/null; done
		for c in $new; do $ipt -t $t -X "$c" 2>/dev/null; done
	done
done

# 6. The kubelets' cgroup roots, deepest first.
step "cgroups"
for h in /sys/fs/cgroup/*/rumbench-kube-[12]; do
	[ -d "$h" ] || continue
	find "$h" -depth -type d -exec rmdir {} \; 2>/dev/null
done

# 7. Files: the paths the cluster's programs use outside $S whatever
# their configuration, when they were not there before (an empty
# /var/run/netns only; /var/log/containers loses only links into $S).
for l in /var/log/containers/*; do
	case "$(readlink "$l" 2>/dev/null)" in "$S"/*) rm -f "$l" ;; esac
done
for p in /var/lib/kubelet /var/log/containers /run/containerd /opt/containerd /var/lib/cni /etc/cni/net.d/cni.lock /var/run/netns; do
	[ -e "$p" ] || continue
	grep -qxF "$p" "$S/paths.before" 2>/dev/null && continue
	case "$p" in
	/var/run/netns)
		# ip netns makes it a shared bind mount of itself
		if [ -z "$(ls -A /var/run/netns)" ]; then
			grep -q ' /run/netns /run/netns ' /proc/self/mountinfo && umount /run/netns 2>/dev/null
			rmdir /var/run/netns 2>/dev/null
		fi
		;;
	/var/log/containers) rmdir "$p" 2>/dev/null ;;
	*) rm -rf "$p" ;;
	esac
done
# The shared bind mount of /run/netns kube-up.sh made, when it is empty.
if [ -e "$S/netns-mount.ours" ] && [ -d /run/netns ] && [ -z "$(ls -A /run/netns)" ] &&
	grep -q ' /run/netns /run/netns ' /proc/self/mountinfo; then
	umount /run/netns 2>/dev/null
fi
rm -rf "$S"
if [ "${KUBE_PURGE:-0}" = 1 ]; then
	rm -rf "$KUBE_BUILD"
fi

# 8. Check.
left=()
[ -n "$(ours)" ] && left+=("processes: $(ours | tr '\n' ' ')")
[ -n "$(awk -v s="$S/" 'index($5, s) == 1' /proc/self/mountinfo)" ] && left+=("mounts under $S")
for ns in $(ls /var/run/netns 2>/dev/null); do
	case "$ns" in cni-*) left+=("netns $ns") ;; esac
done
for l in $(ip -o link show | awk -F': ' '{print $2}' | sed 's/@.*//'); do
	case "$l" in rbk[0-9]*) left+=("link $l") ;; esac
done
for ipt in iptables ip6tables; do
	for t in filter nat mangle raw; do
		c=$($ipt -t $t -S 2>/dev/null | awk '$1 == "-N" && ($2 ~ /^(KUBE-|CNI-)/) {print $2}' | tr '\n' ' ')
		[ -n "$c" ] && left+=("$ipt -t $t chains $c")
	done
done
ls -d /sys/fs/cgroup/*/rumbench-kube-[12] >/dev/null 2>&1 && left+=("cgroups $(ls -d /sys/fs/cgroup/*/rumbench-kube-[12] | tr '\n' ' ')")
if ((${#left[@]})); then
	echo "kube-down: left behind:" >&2
	printf '  %s\n' "${left[@]}" >&2
	exit 1
fi
step "down: no process, mount, netns, bridge, iptables chain or cgroup of the cluster left"
