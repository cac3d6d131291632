#!/usr/bin/env bash
# The cost of checking a saved run, in one command: builds stormcheck, runs
# `stormcheck check RESULTS_DIR` ROUNDS times and prints, for each round,
# the wall and CPU (user+sys) time per operation of the history, the peak
# resident memory of the whole check (load and checks) and the load
# average before it; then the best round. With BASELINE set to another
# stormcheck binary, the two alternate (baseline first) and both are shown.
#
# Usage: scripts/checkscale.sh RESULTS_DIR [ROUNDS]   (default 2)
#        BASELINE=/path/to/old/stormcheck scripts/checkscale.sh RESULTS_DIR 3
#
# The check's exit code (0 pass, 1 violation, 4 undecided) does not matter
# here; any other fails the script. Needs GNU time (/usr/bin/time) and zstd.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:?usage: scripts/checkscale.sh RESULTS_DIR [ROUNDS]}
rounds=${2:-2}
case $rounds in '' | *[!0-9]* | 0) echo "checkscale: ROUNDS must be a whole number above 0, got $rounds" >&2; exit 2 ;; esac
[ -x /usr/bin/time ] || { echo "checkscale: needs GNU time at /usr/bin/time" >&2; exit 2; }
if [ -f "$dir/history.jsonl.zst" ]; then
	ops=$(zstd -dc "$dir/history.jsonl.zst" | wc -l)
elif [ -f "$dir/history.jsonl" ]; then
	ops=$(wc -l <"$dir/history.jsonl")
else
	echo "checkscale: $dir holds no history.jsonl.zst or history.jsonl" >&2
	exit 2
fi
[ "$ops" -gt 0 ] || { echo "checkscale: $dir: the history is empty" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/stormcheck" ./cmd/stormcheck
bins=("$tmp/stormcheck")
names=(this)
if [ -n "${BASELINE:-}" ]; then
	bins=("$BASELINE" "$tmp/stormcheck")
	names=(baseline this)
fi
echo "history: $dir, $ops records; $(nproc) CPUs"
for r in $(seq "$rounds"); do
	for i in "${!bins[@]}"; do
		load=$(cut -d' ' -f1-3 /proc/loadavg)
		rc=0
		/usr/bin/time -o "$tmp/time" -f '%U %S %e %M' "${bins[$i]}" check "$dir" >/dev/null 2>"$tmp/err" || rc=$?
		case $rc in 0 | 1 | 4) ;; *) echo "checkscale: ${names[$i]}: stormcheck check exited $rc:" >&2; cat "$tmp/err" >&2; exit 1 ;; esac
		read -r user sys wall rss <"$tmp/time"
		awk -v n="${names[$i]}" -v r="$r" -v u="$user" -v s="$sys" -v w="$wall" -v m="$rss" -v ops="$ops" -v load="$load" 'BEGIN {
			printf "%-8s round %d: %6.2f us/op wall, %6.2f us/op CPU (%.1f s wall, %.1f+%.1f s CPU), peak %.1f MiB, load %s\n",
				n, r, w*1e6/ops, (u+s)*1e6/ops, w, u, s, m/1024, load }' | tee -a "$tmp/rows"
	done
done
echo "best round (least wall; CPU and peak of that round):"
for n in "${names[@]}"; do
	grep "^$n " "$tmp/rows" | sort -t: -k2 -g | head -1
done
