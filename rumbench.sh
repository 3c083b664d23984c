#!/usr/bin/env bash
# Builds rumbench if needed and runs it: ./rumbench.sh run (the default benchmark).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
"$here/scripts/build.sh"
exec "$here/bin/rumbench" "$@"
