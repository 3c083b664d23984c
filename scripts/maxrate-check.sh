#!/usr/bin/env bash
# Checks the highest-sustained-rate search (docs/metrics.md, The highest
# sustained rate): on each engine it searches 3 times from scratch, then
# runs one probe at 0.9x and one at 1.5x the median found rate by the same
# rule; it prints each found rate, the spread, and the two verdicts.
#
# Usage: [PROBE_SECONDS=10] scripts/maxrate-check.sh [ENGINE ...]   (default: pebble sqlite postgres; probes of 3 s)
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x ./rumbench ] || go build -o rumbench ./cmd/rumbench
engines=("$@")
[ ${#engines[@]} -gt 0 ] || engines=(pebble sqlite postgres)
out=${OUT:-$(mktemp -d /tmp/rumbench-maxrate.XXXXXX)}
args=(--rows 200000 --clients 2 --probe-seconds "${PROBE_SECONDS:-3}" --settle-seconds 1 --max-seconds 600 --quiet)
rate() { jq -r '.details.sustained_rate' "$1/$2/steps/l.max.json"; }
for e in "${engines[@]}"; do
	found=()
	for i in 1 2 3; do
		./rumbench run --engine "$e" --steps l.i0,l.x,l.max "${args[@]}" --out "$out/$e-$i" >/dev/null 2>&1
		found+=("$(rate "$out/$e-$i" "$e")")
	done
	median=$(printf '%s\n' "${found[@]}" | sort -g | sed -n 2p)
	spread=$(printf '%s\n' "${found[@]}" | sort -g | awk -v m="$median" 'NR==1{lo=$1} {hi=$1} END{printf "%+.0f%% / %+.0f%%", (lo/m-1)*100, (hi/m-1)*100}')
	verdicts=()
	for f in 0.9 1.5; do
		r=$(awk -v m="$median" -v f="$f" 'BEGIN{printf "%.0f", m*f}')
		./rumbench run --engine "$e" --steps l.i0,l.x,l.max "${args[@]}" --probe-rate "$r" --out "$out/$e-x$f" >/dev/null 2>&1
		p=$(jq -r '.details.search.probes[0] | "\(if .pass then "passes" else "fails" end) (achieved \(.achieved|floor)/s, p99 \(.p99_us) µs\(if .why then ", " + .why else "" end))"' "$out/$e-x$f/$e/steps/l.max.json")
		verdicts+=("${f}x = $r rows/s $p")
	done
	echo "$e: found ${found[*]} rows/s (median $median, spread $spread); ${verdicts[0]}; ${verdicts[1]}"
done
echo "bundles: $out"
