#!/usr/bin/env bash
# Summarizes a long run's interval log in windows (default 300 s): the main
# operation's rate, the measured processes' and the client's CPU per
# operation, the measured set's memory (PSS), the rest of the host's CPU,
# and how far into the interval log each window ends (MB), so drift and
# growth show at a glance (docs/long-runs.md).
#
# Usage: scripts/longrun-summary.sh BUNDLE_DIR STEP OP [WINDOW_S]
#   e.g. scripts/longrun-summary.sh out/pebble request request 300
set -euo pipefail
dir=${1:?bundle dir (with intervals.jsonl)} step=${2:?step} op=${3:?operation} win=${4:-300}
log="$dir/intervals.jsonl"
[ -f "$log" ] || { echo "longrun-summary: no $log" >&2; exit 2; }
command -v jq >/dev/null || { echo "longrun-summary: needs jq (apt-get install jq)" >&2; exit 2; }
# One line per interval record, in the log's order ("-" for other steps and
# warm-up), beside the log's size up to the end of that record.
paste <(awk '{ n += length($0) + 1; print n }' "$log") \
	<(jq -r --arg s "$step" --arg op "$op" \
		'if .step == $s and (.warmup | not) then [.seconds, (.ops[$op].ops // 0), (.system.cpu_us // 0), (.system.client_cpu_us // 0), (.system.pss_bytes // 0),
		 ((.system.host_busy_us // 0) - (.system.cpu_us // 0) - (.system.client_cpu_us // 0) - (.system.sampler_cpu_us // 0))] | @tsv else "-" end' "$log") |
	awk -F'\t' -v win="$win" '
	BEGIN { print "   end      rate             measured CPU        client CPU       memory      host noise      interval log" }
	NF < 7 { next }
	{ t += $2; sec += $2; ops += $3; cpu += $4; cli += $5; pss = $6; oth += $7; bytes = $1
	  if (sec >= win) { out(); sec = ops = cpu = cli = oth = 0 } }
	END { if (sec > 0) out() }
	function out() {
		printf "%7.0f s  %9.1f ops/s  cpu %7.1f us/op  client %6.1f us/op  pss %6.1f MB  other %5.2f cores  log %7.1f MB\n",
			t, ops / sec, (ops ? cpu / ops : 0), (ops ? cli / ops : 0), pss / 1048576, oth / 1e6 / sec, bytes / 1048576
	}'
