#!/usr/bin/env bash
# Prints the C flags for cgo: Go's own (go env CGO_CFLAGS) without -g. Debug
# info does not change gcc's machine code, only what it costs to compile.
set -euo pipefail
flags=()
for f in $(go env CGO_CFLAGS); do
	case "$f" in
	-g | -g[0-9] | -ggdb*) ;;
	*) flags+=("$f") ;;
	esac
done
echo "${flags[*]}"
