#!/usr/bin/env bash
# Builds rumbench if needed and runs it: ./rumbench.sh run (the default benchmark).
# Only what the command needs is built: the cgo engines rocksdb and
# wiredtiger (and their Debian packages) only when the arguments, or a
# --config file among them, name them.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
need=()
words="$*"
for ((i = 1; i <= $#; i++)); do
	a=${!i}
	case "$a" in
	--config=*) f=${a#--config=} ;;
	--config) j=$((i + 1)); f=${!j:-} ;;
	*) continue ;;
	esac
	[ -f "$f" ] && words+=" $(cat "$f")"
done
for e in rocksdb wiredtiger; do
	if [[ "$words" =~ (^|[^a-z_])$e([^a-z_]|$) ]]; then
		need+=("$e")
		if ! grep -qw "$e" "$here/bin/.tags" 2>/dev/null; then
			echo "rumbench.sh: $e is a cgo engine: installing its Debian package if missing and building it in (a minute or two, once)" >&2
		fi
	fi
done
"$here/scripts/build.sh" "${need[@]}"
exec "$here/bin/rumbench" "$@"
