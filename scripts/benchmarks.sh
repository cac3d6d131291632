#!/usr/bin/env bash
# Runs the benchmarks whose figures are stormcheck's figures of record and
# writes docs/benchmarks.md from their own output: the command of each, the
# commit, the date, the machine, the figures as tables (with the ratios of
# the benchmarks that compare clients side by side) and the raw output.
#
# Usage: scripts/benchmarks.sh [--heavy] [--out FILE]
#
#   default   the quick set, a few minutes on 2 cores: the ceiling (the
#             built binary's whole run against a bare azblob loop and raw
#             net/http, pinned with taskset when it is there), the open
#             loop's schedule lag, the client-CPU comparison against a bare
#             azblob loop (BlobClients), Shared Key
#             signing, the harness's own cost per call, history and hlog
#             encoding, metrics recording, live export, the date clock, the
#             checkers over generated histories, the merge of shard histories
#   --heavy   adds the benchmarks that start Azurite (harness vs a plain loop,
#             the throttling proxy's cost), version-chain against porcupine,
#             and the built binary's check over 1M-operation histories (CPU
#             and peak memory): about half an hour more on 2 cores
#   --out     where to write the page (default docs/benchmarks.md)
#
# Run it niced on a shared machine (nice -n 10 scripts/benchmarks.sh): the
# figures are only as quiet as the machine; the page says what it ran on.
# Each benchmark is found by its name wherever its package lives, so the
# script follows packages that move.
set -euo pipefail
export LC_ALL=C
cd "$(dirname "$0")/.."

heavy=0
out=docs/benchmarks.md
while [ $# -gt 0 ]; do
	case $1 in
	--heavy) heavy=1 ;;
	--out)
		[ $# -ge 2 ] || { echo "benchmarks: --out needs a file" >&2; exit 2; }
		out=$2
		shift
		;;
	-h | --help)
		sed -n '2,24p' "$0" | sed 's/^# \{0,1\}//'
		exit 0
		;;
	*) echo "benchmarks: unknown argument $1 (want --heavy or --out FILE)" >&2; exit 2 ;;
	esac
	shift
done

raw=$(mktemp -d)
trap 'rm -rf "$raw"' EXIT

# pkgof NAME: the package directory (./path) holding func BenchmarkNAME.
pkgof() {
	local f
	f=$(grep -rl --include='*_test.go' "^func Benchmark$1(" . | head -1)
	[ -n "$f" ] || { echo "benchmarks: no func Benchmark$1 in the tree" >&2; exit 1; }
	dirname "$f"
}

# bench ID NAME TITLE GOTEST-ARGS...: runs one benchmark, keeps its output
# in $raw/ID.txt and its command line in $raw/ID.cmd.
order=()
# pin: the prefix a benchmark runs under (set for the ceiling: the
# clients on CPU 0, the endpoint on CPU 1); pinned says it in the command.
pin=()
pinned=
bench() {
	local id=$1 name=$2 title=$3
	shift 3
	local pkg
	pkg=$(pkgof "$name")
	local cmd="${pinned}go test -run '^\$' -bench '^Benchmark$name\$' $* $pkg/"
	echo "benchmarks: $cmd" >&2
	printf '%s\n' "$cmd" >"$raw/$id.cmd"
	printf '%s\n' "$title" >"$raw/$id.title"
	if ! "${pin[@]}" go test -run '^$' -bench "^Benchmark$name\$" "$@" "$pkg/" >"$raw/$id.txt" 2>&1; then
		cat "$raw/$id.txt" >&2
		echo "benchmarks: $name failed" >&2
		exit 1
	fi
	order+=("$id")
}

commit=$(git rev-parse --short HEAD)
if [ -n "$(git status --porcelain --untracked-files=no -- . ":(exclude)$out")" ]; then
	commit="$commit (with uncommitted changes)"
fi
load0=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)
started=$(date -u '+%Y-%m-%d %H:%M UTC')
t0=$(date +%s)

bench blobclients BlobClients "CPU per call: stormcheck's actor path against a bare azblob loop and the wire (8 actors, 8 blobs, a loopback Blob endpoint in a child process, clients in rotating 2 s slices)" -benchtime 6x -timeout 20m
bench schedulelag ScheduleLag "The open loop's own lateness (intended start to call) at 2,000 Get Blob/s against the loopback Blob endpoint: Go's timers alone against the precise pacer a run uses, in rotating 2 s slices" -benchtime 4x -timeout 10m
if command -v taskset >/dev/null && [ "$(nproc)" -ge 2 ]; then
	export STORMCHECK_FIXTURE_CPU=1
	pin=(taskset -c 0)
	pinned="STORMCHECK_FIXTURE_CPU=1 taskset -c 0 "
fi
bench ceiling Ceiling "The ceiling: the built binary's whole run, a bare azblob loop and raw net/http, Get Blob as fast as each goes at its best actor count against the loopback Blob endpoint in a child process (clients on one core, the endpoint on another when taskset is there), in rotating order" -benchtime 2x -timeout 30m
pin=()
pinned=
unset STORMCHECK_FIXTURE_CPU
bench signing Signing "One Get Blob through azblob with nothing on the wire, signed by azblob's Shared Key policy and by stormcheck's signer" -benchmem -benchtime 20000x
bench harnesspercall HarnessPerCall "What the harness adds to one call, alone: an actor's attempt with a canned response (timeout, classification, history line through zstd, HDR metrics, hlog)" -cpu 1 -benchtime 300000x
bench historyencode HistoryEncode "One history line: stormcheck's encoder against encoding/json (the same bytes)" -benchmem -benchtime 300000x
bench historydecode HistoryDecode "Reading one history line: stormcheck's decoder against encoding/json (the same Op)" -benchmem -benchtime 300000x
bench intervalencoder IntervalEncoder "One hlog interval line (10,000 latencies): hdrhistogram-go's log writer against stormcheck's encoder (byte-identical output)" -benchmem -benchtime 200x
bench record Record "Recording one attempt into the live HDR metrics and the per-unit accounting, on one and on two goroutines" -benchmem -cpu 1,2 -benchtime 1000000x
bench exporthook ExportHook "Live export's cost on the hot path: the same attempts recorded with export off and on while the endpoint is scraped" -benchtime 400000x
bench dateclock DateClockObserve "The clock-offset estimate's cost per response (the Date header)" -benchmem -benchtime 1000000x
bench nolostupdates NoLostUpdates "no-lost-updates over a generated 1M-operation history (32 actors, 4 keys)" -benchmem -benchtime 1x -timeout 20m
bench tablebatch TableBatchCheckers "batch-atomicity and snapshot-reads over a simulated table history (one partition of 1,000 rows, 8 actors)" -benchmem -benchtime 1x
bench queuecheckers QueueCheckers "at-least-once, exclusive-visibility and pop-receipt over a simulated queue history" -benchmem -benchtime 1x
bench mergehistories MergeHistories "Merging 4 shard histories k-way into one, against reading them one after another (live-heap peak)" -benchmem -benchtime 1x -timeout 20m
if [ "$heavy" = 1 ]; then
	bench harnessvsplain HarnessVsPlainLoop "Harness against a bare loop of the same azblob calls, against a managed Azurite (16 actors, 16 blobs, alternating 3 s slices)" -benchtime 2x -timeout 20m
	bench proxyoverhead ProxyOverhead "The throttling emulation's cost: table upserts straight to Azurite and through the proxy, alternating slices" -benchtime 2x -timeout 20m
	bench checkerscompared CheckersCompared "version-chain against porcupine on the same generated histories of one blob, valid and with one planted lost update (porcupine: 20 s budget)" -benchtime 1x -timeout 60m
	bench checkcpu CheckCPU "The built binary's check over synthetic histories of 250k and 1M operations: CPU per record and its growth (x-smaller: 1 is linear)" -benchtime 1x -timeout 60m
	bench checkmemory CheckMemory "The built binary's check over a synthetic 1M-operation history: peak RSS, history bytes per operation" -benchtime 1x -timeout 60m -synth-ops=1000000
fi

t1=$(date +%s)
load1=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)

# table FILE [BASE [PROCS]]: the benchmark lines of FILE as a markdown
# table, a row per (sub-)benchmark, a column per unit, in the order they
# first appear. With BASE set (a sub-benchmark's last path element), one
# more row per other sub-benchmark gives its figures over BASE's. With PROCS
# set, a row names its GOMAXPROCS (-cpu), which is dropped otherwise.
table() {
	awk -v base="${2:-}" -v procs="${3:-}" '
	function clean(n,   p) {
		sub(/^Benchmark/, "", n)
		p = 1
		if (match(n, /-[0-9]+$/)) { p = substr(n, RSTART + 1); n = substr(n, 1, RSTART - 1) }
		if (procs != "") n = n " (-cpu " p ")"
		return n
	}
	/^Benchmark/ && NF >= 4 {
		name = clean($1); rows[++nr] = name
		for (i = 3; i + 1 <= NF; i += 2) {
			u = $(i + 1)
			if (!(u in seen)) { seen[u] = 1; units[++nu] = u }
			val[name, u] = $i
		}
	}
	END {
		if (nr == 0) { print "(no benchmark lines: see the raw output)"; exit }
		printf "| benchmark |"; for (j = 1; j <= nu; j++) printf " %s |", units[j]; print ""
		printf "|---|"; for (j = 1; j <= nu; j++) printf "---:|"; print ""
		for (r = 1; r <= nr; r++) {
			printf "| %s |", rows[r]
			for (j = 1; j <= nu; j++) printf " %s |", ((rows[r], units[j]) in val) ? val[rows[r], units[j]] : ""
			print ""
		}
		if (base == "") exit
		b = ""
		for (r = 1; r <= nr; r++) { n = split(rows[r], p, "/"); if (p[n] == base) b = rows[r] }
		if (b == "") exit
		for (r = 1; r <= nr; r++) {
			if (rows[r] == b) continue
			n = split(rows[r], p, "/"); m = split(b, q, "/")
			printf "| **%s / %s** |", p[n], q[m]
			for (j = 1; j <= nu; j++) {
				x = val[rows[r], units[j]]; y = val[b, units[j]]
				if (x != "" && y != "" && y + 0 != 0) printf " **%.3f** |", x / y; else printf " |"
			}
			print ""
		}
	}' "$1"
}

# clients FILE: BlobClients' metrics, named CLIENT-METRIC, as a table of
# clients by metric; then its ratios, named METRIC-CLIENT/OTHER, as a table
# of clients by ratio.
clients() {
	awk '
	BEGIN {
		nk = split("azblob-cancellable azblob-signed stormcheck azblob raw", known, " ")
		nq = split("cpu-total calls-per-core calls allocs bytes cpu", kinds, " ")
	}
	/^Benchmark/ {
		for (i = 3; i + 1 <= NF; i += 2) {
			u = $(i + 1); v = $i; c = ""
			for (k = 1; k <= nk; k++) if (index(u, known[k] "-") == 1) { c = known[k]; break }
			if (c != "") {
				m = substr(u, length(c) + 2)
				if (!(c in cs)) { cs[c] = 1; cl[++nc] = c }
				if (!(m in ms)) { ms[m] = 1; ml[++nm] = m }
				val[c, m] = v
				continue
			}
			for (k = 1; k <= nq; k++) if (index(u, kinds[k] "-") == 1 && index(u, "/") > 0) {
				rest = substr(u, length(kinds[k]) + 2)
				who = substr(rest, 1, index(rest, "/") - 1); against = substr(rest, index(rest, "/") + 1)
				col = kinds[k] " / " against
				if (!(col in rs)) { rs[col] = 1; rl[++nr] = col }
				if (!(who in ws)) { ws[who] = 1; wl[++nw] = who }
				rv[who, col] = v
				break
			}
		}
	}
	END {
		if (nc == 0) { print "(no benchmark lines: see the raw output)"; exit }
		printf "| client |"; for (j = 1; j <= nm; j++) printf " %s |", ml[j]; print ""
		printf "|---|"; for (j = 1; j <= nm; j++) printf "---:|"; print ""
		for (i = 1; i <= nc; i++) {
			printf "| %s |", cl[i]; for (j = 1; j <= nm; j++) printf " %s |", val[cl[i], ml[j]]; print ""
		}
		if (nr == 0) exit
		print ""
		print "Ratios side by side (cpu: the median of the rounds\047 ratios; cpu-total: over all calls; calls-per-core: the"
		print "client\047s calls per core of CPU over the baseline\047s, so below 1 is costlier; calls: calls/s over the baseline\047s):"
		print ""
		printf "| client |"; for (j = 1; j <= nr; j++) printf " %s |", rl[j]; print ""
		printf "|---|"; for (j = 1; j <= nr; j++) printf "---:|"; print ""
		for (i = 1; i <= nw; i++) {
			printf "| %s |", wl[i]
			for (j = 1; j <= nr; j++) printf " %s |", ((wl[i], rl[j]) in rv) ? "**" rv[wl[i], rl[j]] "**" : ""
			print ""
		}
	}' "$1"
}

# The sub-benchmark each comparison is read against.
declare -A base=([signing]=azblob [historyencode]=encoding-json [historydecode]=encoding-json [intervalencoder]=library [record]= [mergehistories]=)

cpu=$(grep -m1 '^model name' /proc/cpuinfo 2>/dev/null | sed 's/^model name[[:space:]]*:[[:space:]]*//' || true)

tmp=$(mktemp "$(dirname "$out")/.benchmarks.XXXXXX")
{
	echo "# Benchmarks"
	echo
	echo "Generated by \`scripts/benchmarks.sh$([ "$heavy" = 1 ] && echo ' --heavy')\` from the benchmarks' own output; do not edit it by hand."
	echo "Run the script again to measure this machine or another; \`--heavy\` adds the benchmarks that start Azurite and"
	echo "the long checks over large histories."
	echo
	echo "| | |"
	echo "|---|---|"
	echo "| commit | $commit |"
	echo "| date | $started |"
	echo "| machine | $(nproc) CPUs, ${cpu:-unknown CPU}, $(uname -sm) |"
	echo "| Go | $(go version | sed 's/^go version //') |"
	echo "| load (1, 5, 15 min) | $load0 at the start, $load1 at the end |"
	echo "| time | $((t1 - t0)) s for all of them |"
	echo
	echo "Figures from one machine at one moment: a shared machine moves absolute times by tens of per cent from run to"
	echo "run. Ratios measured side by side in one run (the clients in rotating slices) move much less; compare those."
	for id in "${order[@]}"; do
		echo
		echo "## $(sed -n 1p "$raw/$id.title")"
		echo
		echo '```sh'
		cat "$raw/$id.cmd"
		echo '```'
		echo
		if [ "$id" = blobclients ] || [ "$id" = ceiling ]; then
			clients "$raw/$id.txt"
		else
			table "$raw/$id.txt" "${base[$id]:-}" "$([ "$id" = record ] && echo yes)"
		fi
	done
	echo
	echo "## Raw output"
	for id in "${order[@]}"; do
		echo
		echo '```'
		echo "\$ $(cat "$raw/$id.cmd")"
		# drop lines that name this machine's paths (temporary directories)
		grep -v -F -e "${HOME:-/nonexistent}/" -e "${TMPDIR:-/tmp}/" "$raw/$id.txt" || true
		echo '```'
	done
} >"$tmp"
mv "$tmp" "$out"
echo "benchmarks: wrote $out ($((t1 - t0)) s)" >&2
