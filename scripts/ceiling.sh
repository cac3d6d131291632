#!/usr/bin/env bash
# The ceiling benchmark in one command: the built binary's whole `run`, a
# bare azblob loop and raw net/http, each at its best actor count, against
# a fast loopback Blob endpoint in another process, in rotating order; it
# prints calls/s and CPU per call of each and the ratios (BenchmarkCeiling
# in runner/bench_ceiling_test.go says how each is measured).
#
# Usage: scripts/ceiling.sh [ROUNDS]   (default 2; about a minute a round)
#
# With taskset and two CPUs or more, the clients run on CPU 0 and the
# endpoint on CPU 1, each on a core of its own; without, they share.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-2}
case $rounds in '' | *[!0-9]*) echo "ceiling: ROUNDS must be a whole number, got $rounds" >&2; exit 2 ;; esac
pin=()
if command -v taskset >/dev/null && [ "$(nproc)" -ge 2 ]; then
	export STORMCHECK_FIXTURE_CPU=1
	pin=(taskset -c 0)
fi
exec "${pin[@]}" go test -run '^$' -bench '^BenchmarkCeiling$' -benchtime "${rounds}x" -timeout 30m ./runner/
