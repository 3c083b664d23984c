#!/usr/bin/env bash
# kube-build.sh: builds kube-apiserver, kube-controller-manager, kube-scheduler,
# kubelet and kubectl from the Go module k8s.io/kubernetes (default v1.34.4)
# into $KUBE_BUILD/bin (default /work/.kube-build/bin), OUTSIDE the repository.
# Nothing of Kubernetes is ever committed. Binaries already there at the right
# version are reused (a second run takes a second).
#
# The module k8s.io/kubernetes replaces its 31 staging modules (k8s.io/api …)
# by ./staging/src/... paths that a downloaded module does not resolve; the
# go.mod written here replaces each by its published v0.<minor>.<patch> instead,
# the list taken from Kubernetes' own go.mod. One `go build` builds all five,
# so their shared packages compile once (about 250 s wall, ~1.9 GB peak on 2
# cores). CGO_ENABLED=0: static binaries.
set -euo pipefail
KUBE_VERSION=${KUBE_VERSION:-v1.34.4}
KUBE_BUILD=${KUBE_BUILD:-/work/.kube-build}
STAGING_VERSION=v0.${KUBE_VERSION#v1.}
CMDS=(kube-apiserver kube-controller-manager kube-scheduler kubelet kubectl)
BIN=$KUBE_BUILD/bin
SRC=$KUBE_BUILD/src
mkdir -p "$BIN" "$SRC"
# A build cache of its own: Kubernetes' ~1.5 GB of objects stay out of the
# user's GOCACHE, and KUBE_PURGE=1 scripts/kube-down.sh removes them too.
export GOCACHE=${KUBE_GOCACHE:-$KUBE_BUILD/gocache}

have=1
for c in "${CMDS[@]}"; do
	[ -x "$BIN/$c" ] || { have=0; break; }
done
if [ "$have" = 1 ] && [ "$(cat "$BIN/.version" 2>/dev/null)" = "$KUBE_VERSION" ]; then
	echo "kube-build: $KUBE_VERSION binaries cached in $BIN"
	exit 0
fi

cd "$SRC"
if [ ! -f go.mod ] || ! grep -q "k8s.io/kubernetes $KUBE_VERSION" go.mod; then
	rm -f go.mod go.sum
	cat >go.mod <<GOMOD
module rumbench.local/kubebuild

go 1.24
GOMOD
	modfile=$(go mod download -json "k8s.io/kubernetes@$KUBE_VERSION" | sed -n 's/.*"GoMod": "\(.*\)",/\1/p')
	[ -f "$modfile" ] || { echo "kube-build: cannot download k8s.io/kubernetes@$KUBE_VERSION" >&2; exit 1; }
	# the "=> ./staging/src/k8s.io/X" lines of Kubernetes' go.mod
	staging=$(sed -n 's#^[[:space:]]*\(k8s.io/[^[:space:]]*\) => ./staging/src/.*#\1#p' "$modfile")
	n=0
	for m in $staging; do
		go mod edit -replace "$m=$m@$STAGING_VERSION"
		n=$((n + 1))
	done
	echo "kube-build: replaced $n staging modules by $STAGING_VERSION"
	pkgs=()
	for c in "${CMDS[@]}"; do pkgs+=("k8s.io/kubernetes/cmd/$c@$KUBE_VERSION"); done
	go get "${pkgs[@]}" 2>"$SRC/go-get.log" || { cat "$SRC/go-get.log" >&2; exit 1; }
fi

ldflags="-s -w"
for p in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
	ldflags+=" -X $p.gitVersion=$KUBE_VERSION -X $p.gitMajor=1 -X $p.gitMinor=$(echo "$KUBE_VERSION" | cut -d. -f2)"
	ldflags+=" -X $p.gitTreeState=clean -X $p.buildDate=1970-01-01T00:00:00Z"
done
pkgs=()
for c in "${CMDS[@]}"; do pkgs+=("k8s.io/kubernetes/cmd/$c"); done
echo "kube-build: building ${CMDS[*]} $KUBE_VERSION into $BIN (about 4-5 minutes on 2 cores)"
start=$(date +%s)
CGO_ENABLED=0 go build -p 2 -trimpath -ldflags "$ldflags" -o "$BIN/" "${pkgs[@]}"
echo "$KUBE_VERSION" >"$BIN/.version"
echo "kube-build: built in $(($(date +%s) - start)) s"
