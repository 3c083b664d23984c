#!/usr/bin/env bash
# kube-image.sh: builds a container image locally, with no registry and no
# Docker engine (buildah from scratch, vfs storage under $KUBE_BUILD), and
# writes it as a docker-archive tar that `ctr -n k8s.io images import` (or
# `docker load`, or `skopeo copy` to a registry) takes with its tag.
#
# Usage: scripts/kube-image.sh rumbench TAR   prints the image's name
#        scripts/kube-image.sh pause TAR      the pod sandbox image
#
# rumbench's image holds bin/rumbench (scripts/build.sh builds it; set
# RUMBENCH_BUILD_TAGS="rocksdb wiredtiger" for the cgo engines) and every
# shared library it links, copied from this machine at the paths `ldd`
# resolves (the dynamic loader, libc, and with the cgo engines librocksdb,
# libwiredtiger and their compression libraries, libstdc++, ...), so the
# image runs on any node whatever its own libraries; plus busybox (static)
# as /bin/sh, tar, sleep, ls ..., which `kubectl cp` and a collect pod's
# `sh -c` need. Nothing else: no package manager, no shell of Debian's.
# The pause image is a static C program that sleeps until it is signalled.
set -euo pipefail
cd "$(dirname "$0")/.."
what=${1:-}
tar=${2:-}
[ -n "$what" ] && [ -n "$tar" ] || { echo "usage: $0 rumbench|pause TAR" >&2; exit 2; }
KUBE_BUILD=${KUBE_BUILD:-/work/.kube-build}
B=$KUBE_BUILD/buildah
mkdir -p "$B/root" "$B/runroot" "$B/work" "$(dirname "$tar")"
bah() { buildah --root "$B/root" --runroot "$B/runroot" --storage-driver vfs "$@"; }

image() { # name, rootfs dir, entrypoint...: build, commit and write the tar
	local name=$1 rootfs=$2
	shift 2
	local c
	c=$(bah from --quiet scratch)
	bah copy --quiet "$c" "$rootfs/" / >/dev/null
	local cmd
	cmd=$(printf '"%s",' "$@")
	bah config --entrypoint "[${cmd%,}]" --cmd '' \
		--env PATH=/usr/local/bin:/usr/bin:/bin --workingdir / "$c"
	bah commit --quiet --rm "$c" "$name" >/dev/null
	rm -f "$tar"
	bah push --quiet "$name" "docker-archive:$tar:$name" >/dev/null
	bah rmi --quiet "$name" >/dev/null 2>&1 || true
}

W=$B/work/$what
rm -rf "$W"
mkdir -p "$W/rootfs"
case "$what" in
pause)
	cat >"$W/pause.c" <<'EOF'
/* The pod sandbox's process: holds the pod's namespaces, reaps orphans,
   exits on SIGINT or SIGTERM. */
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
static void stop(int sig) { (void)sig; _exit(0); }
static void reap(int sig) { (void)sig; while (waitpid(-1, NULL, WNOHANG) > 0) {} }
int main(void) {
	signal(SIGINT, stop);
	signal(SIGTERM, stop);
	signal(SIGCHLD, reap);
	for (;;) pause();
}
EOF
	gcc -static -O2 -s -o "$W/rootfs/pause" "$W/pause.c"
	image rumbench.local/pause:1 "$W/rootfs" /pause
	echo rumbench.local/pause:1
	;;
rumbench)
	# shellcheck disable=SC2086
	scripts/build.sh ${RUMBENCH_BUILD_TAGS:-} >&2
	r=$W/rootfs
	mkdir -p "$r/usr/local/bin" "$r/bin" "$r/tmp" "$r/etc" "$r/scratch" "$r/results"
	chmod 1777 "$r/tmp"
	cp bin/rumbench "$r/usr/local/bin/rumbench"
	# Every shared library at the path ldd resolves, and the loader.
	libs=$(ldd bin/rumbench | awk '/=> \//{print $3} /^\t\//{print $1}' | sort -u)
	for l in $libs; do
		mkdir -p "$r$(dirname "$l")"
		cp -L "$l" "$r$l"
	done
	# The loader's own path (/lib64/ld-linux-x86-64.so.2 is a link on Debian).
	interp=$(readelf -l bin/rumbench | sed -n 's/.*interpreter: \(.*\)]/\1/p')
	if [ -n "$interp" ] && [ ! -e "$r$interp" ]; then
		mkdir -p "$r$(dirname "$interp")"
		cp -L "$interp" "$r$interp"
	fi
	cp /bin/busybox "$r/bin/busybox"
	for t in sh tar sleep ls cat mkdir rm cp mv find du df ps kill env date; do
		ln -s busybox "$r/bin/$t"
	done
	printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/sh\n' >"$r/etc/passwd"
	printf 'root:x:0:\nnogroup:x:65534:\n' >"$r/etc/group"
	# The tag names the commit, and the build time when the tree has
	# changes: a new binary is a new tag, so a node never runs a stale
	# image under a reused name (imagePullPolicy IfNotPresent).
	tag=$(git rev-parse --short HEAD 2>/dev/null || echo dev)
	if [ -n "$(git status --porcelain 2>/dev/null | grep -v '^??' || true)" ]; then tag="$tag-dirty-$(date +%s)"; fi
	name=rumbench.local/rumbench:${RUMBENCH_IMAGE_TAG:-$tag}
	image "$name" "$r" rumbench
	echo "kube-image: $name: rumbench $(du -sh bin/rumbench | cut -f1), $(echo "$libs" | wc -w) shared libraries ($(echo $libs | tr '\n' ' ')), busybox; $(du -sh "$tar" | cut -f1) tar" >&2
	echo "$name"
	;;
*)
	echo "kube-image: unknown image $what (rumbench or pause)" >&2
	exit 2
	;;
esac
rm -rf "$W"
