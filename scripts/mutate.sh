#!/usr/bin/env bash
# Mutation testing of the checkers: gremlins (github.com/go-gremlins/gremlins)
# mutates the named files of one checks package one change at a time (a
# comparison flipped or moved by one, + and - swapped, ...) and runs that
# package's tests against each mutant; a mutant the tests do not catch is
# LIVED.
#
# A full run of checks/ is ~2,500 mutants at ~15 s each, so name the files
# (by name; they are looked up under checks/, and must share one package):
#   scripts/mutate.sh singlewinner.go nolostupdates.go
#   scripts/mutate.sh --conditionals-only nolostupdates.go   (only == != < <= > >= negated)
# Needs gremlins on PATH or in ~/go/bin
# (go install github.com/go-gremlins/gremlins/cmd/gremlins@v0.6.0). One
# worker, niced: the machine stays usable. Not part of CI.
#
# gremlins never runs mutants of `switch { case cond: }` conditions: Go's
# coverage profile does not count case expressions, so they show as
# NOT COVERED although the tests run them.
set -euo pipefail
cd "$(dirname "$0")/.."

usage() { sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit "${1:-0}"; }
flags=()
files=()
for a in "$@"; do
	case $a in
	-h | --help) usage ;;
	--conditionals-only) flags+=(--arithmetic-base=false --conditionals-boundary=false --increment-decrement=false --invert-negatives=false) ;;
	-*) echo "mutate.sh: unknown option $a (allowed: --conditionals-only, --help)" >&2; exit 2 ;;
	*) files+=("$(basename "$a")") ;;
	esac
done
if [ ${#files[@]} -eq 0 ]; then
	echo "mutate.sh: name the checks/ files to mutate, e.g. scripts/mutate.sh singlewinner.go" >&2
	exit 2
fi
dir=""
for f in "${files[@]}"; do
	case $f in
	*_test.go) echo "mutate.sh: $f is a test file; name the checker's source (checks/**/*.go)" >&2; exit 2 ;;
	esac
	found=$(find checks -name "$f" -not -name '*_test.go' | head -1)
	if [ -z "$found" ]; then
		echo "mutate.sh: no $f under checks/ (files: $(find checks -name '*.go' -not -name '*_test.go' -printf '%f ' | sort))" >&2
		exit 2
	fi
	d=$(dirname "$found")
	if [ -n "$dir" ] && [ "$d" != "$dir" ]; then
		echo "mutate.sh: $f is in $d, the others in $dir: name files of one package at a time" >&2
		exit 2
	fi
	dir=$d
done
g=$(command -v gremlins || true)
[ -z "$g" ] && [ -x "$HOME/go/bin/gremlins" ] && g=$HOME/go/bin/gremlins
if [ -z "$g" ]; then
	echo "mutate.sh: gremlins not found; go install github.com/go-gremlins/gremlins/cmd/gremlins@v0.6.0" >&2
	exit 2
fi

# Exclude every other source file of the package (gremlins matches the path
# relative to the package's folder).
excl=()
for p in "$dir"/*.go; do
	b=$(basename "$p")
	case $b in *_test.go) continue ;; esac
	keep=0
	for f in "${files[@]}"; do [ "$b" = "$f" ] && keep=1; done
	[ $keep = 0 ] && excl+=(-E "(^|/)${b//./\\.}\$")
done
# -count=1: a coverage run served from the test cache takes 0.4 s, and
# gremlins would time every mutant out at 3x that.
GOFLAGS=-count=1 exec nice -n 10 "$g" unleash --workers 1 --test-cpu 0 "${flags[@]}" "${excl[@]}" "./$dir"
