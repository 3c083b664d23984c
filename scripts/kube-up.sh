#!/usr/bin/env bash
# kube-up.sh: a private Kubernetes cluster on this machine, from nothing, to
# try rumbench's Indexed Jobs on (docs/scale-out.md, "On a real cluster").
# Usage: scripts/kube-up.sh            (one node)
#        KUBE_NODES=2 scripts/kube-up.sh (two kubelets, two containerds)
# Then:  export KUBECONFIG=/work/.kube-build/run/admin.kubeconfig
# Down:  scripts/kube-down.sh (leaves no process, mount, bridge, netns,
#        cgroup or iptables chain of the cluster's behind).
#
# What it starts, all as root, all state under $KUBE_STATE
# (default /work/.kube-build/run), nothing in the repository:
#   - Debian's etcd-server (3.4), containerd (1.6) with runc, the CNI
#     plugins (bridge + host-local IPAM, no masquerade), buildah and
#     busybox-static, installed when missing;
#   - kube-apiserver, kube-controller-manager, kube-scheduler, kubelet and
#     kubectl v1.34.4, built from the Go module by scripts/kube-build.sh into
#     $KUBE_BUILD/bin (cached: built once, ~4-5 min on 2 cores);
#   - certificates made with openssl (one CA; a client certificate per
#     component; the kubelets run AlwaysAllow behind x509);
#   - per node: a containerd of its own (own socket, root, state, CNI config
#     and pod subnet 10.244.<n>.0/24 on bridge rbk<n>), a kubelet (own port,
#     root dir, cgroup root /rumbench-kube-<n>, pod log dir);
#   - the images: a pause image (a static C program) as containerd's
#     sandbox_image, and rumbench's own (scripts/kube-image.sh), imported into
#     every containerd (nothing can be pulled here);
#   - a ReadWriteMany PersistentVolume (hostPath $KUBE_STATE/pv/results)
#     and the claim rumbench-results bound to it, for --pvc.
# No kube-proxy and no DNS: a Job's pods need neither.
#
# Facts of this machine kind this relies on (issue 49): cgroup v1 without
# systemd (cgroupfs driver; kubelet 1.34 still runs on v1), CAP_SYS_RESOURCE
# dropped (containerd's restrict_oom_score_adj = true, or runc cannot start a
# sandbox: "can't get final child's PID from pipe: EOF"), the host name
# resolving to 127.0.0.1 (the apiserver reaches kubelets by InternalIP).
set -euo pipefail
cd "$(dirname "$0")/.."
REPO=$(pwd)
KUBE_BUILD=${KUBE_BUILD:-/work/.kube-build}
S=${KUBE_STATE:-$KUBE_BUILD/run}
NODES=${KUBE_NODES:-1}
BIN=$KUBE_BUILD/bin
t0=$(date +%s)
step() { echo "kube-up: [$(($(date +%s) - t0)) s] $*"; }
die() { echo "kube-up: $*" >&2; exit 1; }

[ "$(id -u)" = 0 ] || die "run as root (containerd, kubelet and CNI need it)"
case "$NODES" in 1 | 2) ;; *) die "KUBE_NODES is 1 or 2, got $NODES" ;; esac
if [ -e "$S/pids" ]; then
	die "a cluster is up in $S (or was not torn down): scripts/kube-down.sh first"
fi

step "packages"
scripts/deps.sh containerd runc etcd-server containernetworking-plugins buildah busybox-static iptables openssl

step "Kubernetes binaries"
scripts/kube-build.sh
export PATH=$BIN:$PATH

mkdir -p "$S"/{pki,logs,pv/results,images}
: >"$S/pids"
# What existed before, so kube-down.sh removes only what the cluster made.
ip -o link show | awk -F': ' '{print $2}' | sed 's/@.*//' >"$S/links.before"
ls /var/run/netns 2>/dev/null >"$S/netns.before" || true
# Paths the kubelet, containerd and the CNI plugins use whatever their
# configuration says (the device-plugin socket, /var/log/containers links,
# runc's state, the CNI result cache and lock, the netns mounts' dir).
for p in /var/lib/kubelet /var/log/containers /run/containerd /opt/containerd /var/lib/cni /etc/cni/net.d/cni.lock /var/run/netns; do
	[ -e "$p" ] && echo "$p"
done >"$S/paths.before"
# containerd bind-mounts each pod's network namespace at
# /run/netns/cni-...; `ip netns` (anyone's, later) bind-mounts /run/netns
# over itself when it is not yet a mount point, hiding those mounts: the
# kubelet then cannot remove a pod's sandbox (unlinkat /run/netns/cni-...:
# device or resource busy) and the pod stays Terminating. Seen here when a
# test elsewhere on the machine ran ip netns while the cluster was up. So
# make it that shared mount first, as ip netns would.
mkdir -p /run/netns
if ! grep -q ' /run/netns /run/netns ' /proc/self/mountinfo; then
	mount --bind /run/netns /run/netns
	touch "$S/netns-mount.ours"
fi
mount --make-shared /run/netns
for ipt in iptables ip6tables; do
	for t in filter nat mangle raw; do
		$ipt -t $t -S 2>/dev/null | awk -v p="$ipt $t" '$1 == "-N" {print p, $2}'
	done
done >"$S/chains.before"

# Node address: the machine's own (the apiserver reaches the kubelets on it;
# the host name resolves to 127.0.0.1, which a kubelet may not use).
NODE_IP=${KUBE_NODE_IP:-$(ip -4 -o addr show scope global | awk '{print $4}' | cut -d/ -f1 | head -1)}
[ -n "$NODE_IP" ] || die "no global IPv4 address for the node (set KUBE_NODE_IP)"
echo "$NODE_IP" >"$S/node-ip"

start() { # name, command...: start in the background, log and pid under $S
	local name=$1
	shift
	setsid "$@" >"$S/logs/$name.log" 2>&1 </dev/null &
	echo "$! $name" >>"$S/pids"
}
wait_for() { # what, seconds, command...
	local what=$1 secs=$2
	shift 2
	for _ in $(seq $((secs * 5))); do
		if "$@" >/dev/null 2>&1; then return 0; fi
		sleep 0.2
	done
	die "$what did not come up in $secs s (logs in $S/logs)"
}

step "certificates"
P=$S/pki
openssl genrsa -out "$P/ca.key" 2048 2>/dev/null
openssl req -x509 -new -key "$P/ca.key" -subj "/CN=rumbench-kube-ca" -days 30 -out "$P/ca.crt" 2>/dev/null
cert() { # name, subject, [subjectAltName]
	local n=$1 subj=$2 san=${3:-}
	openssl genrsa -out "$P/$n.key" 2048 2>/dev/null
	openssl req -new -key "$P/$n.key" -subj "$subj" -out "$P/$n.csr" 2>/dev/null
	local ext="$P/$n.ext"
	{
		echo "basicConstraints=CA:FALSE"
		echo "keyUsage=digitalSignature,keyEncipherment"
		echo "extendedKeyUsage=serverAuth,clientAuth"
		[ -n "$san" ] && echo "subjectAltName=$san"
	} >"$ext"
	openssl x509 -req -in "$P/$n.csr" -CA "$P/ca.crt" -CAkey "$P/ca.key" -CAcreateserial \
		-days 30 -extfile "$ext" -out "$P/$n.crt" 2>/dev/null
}
cert apiserver "/CN=kube-apiserver" \
	"DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:localhost,IP:127.0.0.1,IP:10.96.0.1,IP:$NODE_IP"
cert admin "/O=system:masters/CN=rumbench-admin"
cert controller-manager "/CN=system:kube-controller-manager"
cert scheduler "/CN=system:kube-scheduler"
for n in $(seq "$NODES"); do
	cert "kubelet-$n" "/O=system:nodes/CN=system:node:rumbench-node-$n" "DNS:rumbench-node-$n,IP:$NODE_IP"
done
openssl genrsa -out "$P/sa.key" 2048 2>/dev/null
openssl rsa -in "$P/sa.key" -pubout -out "$P/sa.pub" 2>/dev/null

kubeconfig() { # name, cert
	cat >"$S/$1.kubeconfig" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: rumbench
  cluster: {certificate-authority: $P/ca.crt, server: "https://127.0.0.1:6443"}
users:
- name: $1
  user: {client-certificate: $P/$2.crt, client-key: $P/$2.key}
contexts:
- name: rumbench
  context: {cluster: rumbench, user: $1}
current-context: rumbench
EOF
}
kubeconfig admin admin
kubeconfig controller-manager controller-manager
kubeconfig scheduler scheduler
for n in $(seq "$NODES"); do kubeconfig "kubelet-$n" "kubelet-$n"; done
export KUBECONFIG=$S/admin.kubeconfig

step "etcd"
start etcd etcd --name rumbench --data-dir "$S/etcd" \
	--listen-client-urls http://127.0.0.1:2379 --advertise-client-urls http://127.0.0.1:2379 \
	--listen-peer-urls http://127.0.0.1:2380 --initial-advertise-peer-urls http://127.0.0.1:2380 \
	--initial-cluster rumbench=http://127.0.0.1:2380 --listen-metrics-urls http://127.0.0.1:2381
wait_for etcd 30 curl -sf http://127.0.0.1:2379/health

step "kube-apiserver"
start kube-apiserver kube-apiserver \
	--etcd-servers=http://127.0.0.1:2379 \
	--bind-address=127.0.0.1 --secure-port=6443 --advertise-address="$NODE_IP" \
	--client-ca-file="$P/ca.crt" --tls-cert-file="$P/apiserver.crt" --tls-private-key-file="$P/apiserver.key" \
	--kubelet-client-certificate="$P/admin.crt" --kubelet-client-key="$P/admin.key" \
	--kubelet-preferred-address-types=InternalIP,Hostname \
	--service-account-issuer=https://kubernetes.default.svc --service-account-key-file="$P/sa.pub" \
	--service-account-signing-key-file="$P/sa.key" \
	--service-cluster-ip-range=10.96.0.0/24 --authorization-mode=Node,RBAC \
	--allow-privileged=true --profiling=false
wait_for kube-apiserver 90 kubectl get --raw /readyz

step "kube-controller-manager, kube-scheduler"
start kube-controller-manager kube-controller-manager --kubeconfig="$S/controller-manager.kubeconfig" \
	--authentication-kubeconfig="$S/controller-manager.kubeconfig" --authorization-kubeconfig="$S/controller-manager.kubeconfig" \
	--bind-address=127.0.0.1 --leader-elect=false --service-account-private-key-file="$P/sa.key" \
	--root-ca-file="$P/ca.crt" --cluster-signing-cert-file="$P/ca.crt" --cluster-signing-key-file="$P/ca.key" \
	--use-service-account-credentials=true --controllers='*,-nodeipam' --profiling=false
start kube-scheduler kube-scheduler --kubeconfig="$S/scheduler.kubeconfig" \
	--authentication-kubeconfig="$S/scheduler.kubeconfig" --authorization-kubeconfig="$S/scheduler.kubeconfig" \
	--bind-address=127.0.0.1 --leader-elect=false --profiling=false

step "pause image"
pause_tar=$S/images/pause.tar
scripts/kube-image.sh pause "$pause_tar"

for n in $(seq "$NODES"); do
	N=$S/node-$n
	mkdir -p "$N"/{containerd/root,containerd/state,cni/net.d,cni/ipam,kubelet,pods-log}
	step "node rumbench-node-$n: containerd"
	cat >"$N/containerd/config.toml" <<EOF
version = 2
root = "$N/containerd/root"
state = "$N/containerd/state"
[grpc]
  address = "$N/containerd/containerd.sock"
[ttrpc]
  address = "$N/containerd/containerd.sock.ttrpc"
[debug]
  address = ""
[metrics]
  address = ""
[plugins]
  [plugins."io.containerd.grpc.v1.cri"]
    sandbox_image = "rumbench.local/pause:1"
    restrict_oom_score_adj = true
    disable_apparmor = true
    [plugins."io.containerd.grpc.v1.cri".cni]
      bin_dir = "/usr/lib/cni"
      conf_dir = "$N/cni/net.d"
    [plugins."io.containerd.grpc.v1.cri".containerd]
      snapshotter = "overlayfs"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
        runtime_type = "io.containerd.runc.v2"
        [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
          SystemdCgroup = false
EOF
	cat >"$N/cni/net.d/10-rumbench.conflist" <<EOF
{
  "cniVersion": "1.0.0",
  "name": "rumbench-$n",
  "plugins": [
    {
      "type": "bridge",
      "bridge": "rbk$n",
      "isGateway": true,
      "ipMasq": false,
      "hairpinMode": true,
      "ipam": {
        "type": "host-local",
        "dataDir": "$N/cni/ipam",
        "ranges": [[{"subnet": "10.244.$n.0/24"}]],
        "routes": [{"dst": "10.244.0.0/16"}]
      }
    },
    {"type": "loopback"}
  ]
}
EOF
	start "containerd-$n" containerd --config "$N/containerd/config.toml"
	wait_for "containerd-$n" 30 ctr -a "$N/containerd/containerd.sock" version
	ctr -a "$N/containerd/containerd.sock" -n k8s.io images import "$pause_tar" >/dev/null
done

step "rumbench image"
scripts/kube-image.sh rumbench "$S/images/rumbench.tar" >"$S/image-name"
for n in $(seq "$NODES"); do
	ctr -a "$S/node-$n/containerd/containerd.sock" -n k8s.io images import "$S/images/rumbench.tar" >/dev/null
done

for n in $(seq "$NODES"); do
	N=$S/node-$n
	step "node rumbench-node-$n: kubelet"
	# Its own cgroup root in every v1 hierarchy: two kubelets never share
	# a kubepods tree, and kube-down.sh removes exactly these.
	for h in /sys/fs/cgroup/*/; do
		[ -e "$h/cgroup.procs" ] || continue
		mkdir -p "$h/rumbench-kube-$n"
	done
	cat >"$N/kubelet/config.yaml" <<EOF
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
authentication:
  anonymous: {enabled: false}
  webhook: {enabled: false}
  x509: {clientCAFile: "$P/ca.crt"}
authorization: {mode: AlwaysAllow}
cgroupDriver: cgroupfs
cgroupRoot: /rumbench-kube-$n
failCgroupV1: false
failSwapOn: false
containerRuntimeEndpoint: unix://$N/containerd/containerd.sock
address: $NODE_IP
port: $((10250 + 10 * (n - 1)))
healthzBindAddress: 127.0.0.1
healthzPort: $((10248 + 10 * (n - 1)))
readOnlyPort: 0
tlsCertFile: "$P/kubelet-$n.crt"
tlsPrivateKeyFile: "$P/kubelet-$n.key"
podLogsDir: "$N/pods-log"
resolvConf: /etc/resolv.conf
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
evictionHard: {memory.available: "100Mi", nodefs.available: "1%", imagefs.available: "1%"}
serializeImagePulls: false
maxPods: 30
EOF
	start "kubelet-$n" kubelet --config="$N/kubelet/config.yaml" --kubeconfig="$S/kubelet-$n.kubeconfig" \
		--root-dir="$N/kubelet/root" --hostname-override="rumbench-node-$n" --node-ip="$NODE_IP" \
		--cert-dir="$N/kubelet/pki" --v=1
done
for n in $(seq "$NODES"); do
	wait_for "node rumbench-node-$n" 120 sh -c "kubectl get node rumbench-node-$n -o jsonpath='{.status.conditions[?(@.type==\"Ready\")].status}' | grep -qx True"
done
wait_for "service account default" 60 kubectl get serviceaccount default

step "results volume (PV + PVC rumbench-results)"
kubectl apply -f - >/dev/null <<EOF
apiVersion: v1
kind: PersistentVolume
metadata: {name: rumbench-results}
spec:
  capacity: {storage: 10Gi}
  accessModes: [ReadWriteMany]
  persistentVolumeReclaimPolicy: Retain
  storageClassName: rumbench-local
  hostPath: {path: "$S/pv/results", type: Directory}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: rumbench-results}
spec:
  accessModes: [ReadWriteMany]
  storageClassName: rumbench-local
  resources: {requests: {storage: 10Gi}}
  volumeName: rumbench-results
EOF
wait_for "PVC rumbench-results bound" 60 sh -c "kubectl get pvc rumbench-results -o jsonpath='{.status.phase}' | grep -qx Bound"

step "up: $NODES node(s), image $(cat "$S/image-name")"
kubectl get nodes -o wide
echo "export KUBECONFIG=$S/admin.kubeconfig PATH=$BIN:\$PATH"
