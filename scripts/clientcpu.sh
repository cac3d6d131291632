#!/usr/bin/env bash
# Where a call's client CPU goes: stormcheck's actor path against the bare
# azblob loop, each alone, on a core of its own, profiled by perf.
#
# BenchmarkBlobClients runs each client in turn (STORMCHECK_BENCH_CLIENT)
# pinned to CPU 0 with GOMAXPROCS=1 and its fixture pinned to CPU 1
# (STORMCHECK_FIXTURE_CPU), so the client owns its core and is never idle:
# every sample on CPU 0 is its work. `perf record -C 0` samples that core at
# 4 kHz for 12 s in the middle of the run; the script prints, in µs per call
# (one call = one HTTP request), what each part costs for both clients and
# the difference: the harness's own code (stormcheck, HDR histograms, zstd),
# the Go runtime (collector, allocator, scheduler), net/http and the SDK, and
# the kernel, with the harness's entry points and the kernel's wake-up of
# the endpoint (sock_def_readable) apart.
#
# Needs: Linux, 2+ CPUs, perf (linux-perf) with access to cpu-clock
# (perf_event_paranoid ≤ 0, or root), taskset (util-linux). Not part of CI.
# Usage: scripts/clientcpu.sh [ROUNDS [BASELINE]]   (default 10 rounds: 20 s per
# client; BASELINE azblob, the bare loop, or azblob-signed, the bare loop
# signed as stormcheck signs, to see the harness's own work alone)
set -euo pipefail
export LC_ALL=C
cd "$(dirname "$0")/.."
rounds=${1:-10}
base=${2:-azblob}
case $base in azblob | azblob-signed | azblob-cancellable | raw) ;; *) echo "clientcpu: BASELINE is azblob, azblob-signed, azblob-cancellable or raw, not $base" >&2; exit 2 ;; esac
for tool in perf taskset awk; do
	command -v "$tool" >/dev/null || { echo "clientcpu: $tool not found" >&2; exit 2; }
done
[ "$(nproc)" -ge 2 ] || { echo "clientcpu: needs 2 CPUs (client on 0, endpoint on 1)" >&2; exit 2; }
if ! out=$(perf record -q -C 0 -e cpu-clock -o /dev/null -- true 2>&1); then
	echo "clientcpu: perf cannot sample CPU 0 here ($(echo "$out" | head -1)); it needs kernel.perf_event_paranoid <= 0 (sysctl) or root" >&2
	exit 2
fi
dir=$(mktemp -d /tmp/clientcpu-XXXXXX)
trap 'rm -rf "$dir"' EXIT
go test -c -o "$dir/runner.test" ./runner/

profile() { # client → $dir/$client.{txt,data}; prints µs of CPU 0 per call
	local c=$1
	(cd runner && STORMCHECK_FIXTURE_CPU=1 STORMCHECK_BENCH_CLIENT=$c taskset -c 0 "$dir/runner.test" \
		-test.run '^$' -test.bench BlobClients -test.benchtime "${rounds}x" -test.cpu 1 >"$dir/$c.txt" 2>&1) &
	local bench=$!
	sleep 4
	perf record -q -C 0 -e cpu-clock -F 4000 -g -o "$dir/$c.data" -- sleep 12 >/dev/null 2>&1
	wait "$bench" || { cat "$dir/$c.txt" >&2; exit 1; }
	local cps top
	cps=$(awk -v u="$c-calls/s" '/^Benchmark/ { for (i = 3; i < NF; i += 2) if ($(i+1) == u) print $i }' "$dir/$c.txt")
	# The client is the process with the most samples on CPU 0; anything
	# else that ran there is left out.
	top=$(perf script -i "$dir/$c.data" -F pid 2>/dev/null | sort | uniq -c | sort -rn | awk 'NR == 1 { print $1, $2 }')
	echo "${top#* }" >"$dir/$c.pid"
	awk -v s="${top% *}" -v r="$cps" 'BEGIN { printf "%.3f\n", s / 4000 / (r * 12) * 1e6 }'
}

# parts FILE PERCALL: "group µs" lines, self time by group, plus entry points (inclusive)
parts() {
	local only=(--pid "$3" --percentage relative)
	perf report -i "$1" "${only[@]}" --no-children --sort dso,sym -q -g none --percent-limit 0 2>/dev/null | awk -v pc="$2" '
	{ pct = $1; sub(/%/, "", pct); sym = ""; for (i = 4; i <= NF; i++) sym = sym " " $i
	  g = "other"
	  if ($3 == "[k]") g = "kernel"
	  else if (sym ~ /ParseCounterValue|CounterValue|bareLoop|etagCounter/) g = "the loop itself (parse, format)"
	  else if (sym ~ /sharedkey/) g = "net/http, signing"
	  else if (sym ~ /stormcheck|hdrhistogram|klauspost/) g = "harness code"
	  else if (sym ~ /gcDrain|scanObject|tryDeferToSpanScan|scanblock|greyobject|findObject|gcmarknewobject|scanSpan|scanstack|sweep|markroot|wbBuf|pcvalue|runtime\.step|getStackMap|unwinder|findfunc/) g = "go: collector"
	  else if (sym ~ /malloc|newobject|nextFreeFast|mspan|mcache|mcentral|makeslice|growslice|memclr|spanClass|spanSet|mheap|rawstring/) g = "go: allocator"
	  else if (sym ~ /runtime\.(schedule|findRunnable|park|gopark|goready|ready|runq|netpoll|mcall|casgstatus|execute|wakep|futex|notesleep|notewakeup|stopm|startm|checkTimers|lock|unlock|chan|selectgo|send|recv|nanotime)/) g = "go: scheduler"
	  else if (sym ~ /Azure/) g = "azure sdk"
	  else if (sym ~ /net\/http|net\/textproto|net\/url| net\.|internal\/poll|bufio|syscall|crypto|sha256|hmac|base64/) g = "net/http, signing"
	  t[g] += pct }
	END { for (g in t) printf "%s\t%.2f\n", g, t[g] / 100 * pc }'
	perf report -i "$1" "${only[@]}" --children --sort sym -q -g none --percent-limit 0 2>/dev/null | awk -v pc="$2" '
	{ pct = $1; sub(/%/, "", pct); sym = $NF
	  n = split("runner.(*Recorder).Record checks.(*Op).AppendJSONLine zstd.(*Encoder).Write reports.(*Metrics).Record runner.classify runner.sentInput sock_def_readable", want, " ")
	  for (i = 1; i <= n; i++) if (index(sym, want[i]) && substr(sym, length(sym) - length(want[i]) + 1) == want[i]) printf "  %s\t%.2f\n", want[i], pct / 100 * pc }'
}

declare -A per
for c in stormcheck "$base"; do
	per[$c]=$(profile "$c")
	parts "$dir/$c.data" "${per[$c]}" "$(cat "$dir/$c.pid")" | sort >"$dir/$c.parts"
done
printf '%-40s %10s %10s %10s\n' "µs of CPU per call" stormcheck "$base" difference
printf '%-40s %10.2f %10.2f %+10.2f\n' "all (perf, CPU 0)" "${per[stormcheck]}" "${per[$base]}" \
	"$(awk -v a="${per[stormcheck]}" -v b="${per[$base]}" 'BEGIN { print a - b }')"
join -t $'\t' -a 1 -a 2 -e 0 -o 0,1.2,2.2 "$dir/stormcheck.parts" "$dir/$base.parts" >"$dir/joined"
{ grep -v '^  ' "$dir/joined"; echo "of which (inclusive: with what each calls)"; grep '^  ' "$dir/joined"; } |
	awk -F '\t' 'NF < 3 { print; next } { printf "%-40s %10.2f %10.2f %+10.2f\n", $1, $2, $3, $2 - $3 }'
for c in stormcheck "$base"; do
	awk -v c="$c" '/^Benchmark/ { for (i = 3; i < NF; i += 2) if ($(i+1) == c "-cpu-µs/call") printf "%s: %s µs CPU per call by getrusage over the whole run\n", c, $i }' "$dir/$c.txt"
done
