#!/usr/bin/env bash
# Writes docs/conformance-azurite-3.37.0.txt, the full conformance matrix of
# the managed Azurite (the version stormcheck starts by default): every
# shipped rule with its result against the shipped baseline, then the
# coverage map, from `stormcheck conform -v` and `conform --coverage`
# themselves (run in a temporary directory, so no results are left in the
# checkout). A test fails when the page names a rule that is not shipped or
# misses one that is: run this after adding or renaming rules.
#
# Usage: scripts/conformance-matrix.sh
set -euo pipefail
export LC_ALL=C
cd "$(dirname "$0")/.."

version=3.37.0
if [ $# -gt 0 ]; then
  sed -n '2,8p' "$0"
  exit 2
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/stormcheck" ./cmd/stormcheck
page="docs/conformance-azurite-$version.txt"
set +e
(cd "$tmp" && ./stormcheck conform -v --baseline "azurite-$version" --out "$tmp/out") >"$tmp/matrix.txt" 2>"$tmp/stderr.txt"
code=$?
set -e
# 0: the divergences are the baseline's; 1: others too (the page shows them). Anything
# else is a failed run, and the page is left as it was.
if [ "$code" -ne 0 ] && [ "$code" -ne 1 ]; then
  cat "$tmp/stderr.txt" >&2
  echo "conformance-matrix.sh: conform exited $code; $page left as it was" >&2
  exit 1
fi
# The results folder is a temporary one: name it as a user's would read.
{
  sed -e "s#$tmp/out#results/conform-...#g" "$tmp/matrix.txt"
  printf '\n== Coverage map (stormcheck conform --coverage) ==\n\n'
  "$tmp/stormcheck" conform --coverage
} >"$tmp/page.txt"
mv "$tmp/page.txt" "$page"
echo "wrote $page (conform exit $code)"
