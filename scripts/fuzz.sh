#!/usr/bin/env bash
# Fuzz the scenario loader, the conformance rule loader, the history reader
# and the SMB client's parsers, MINUTES minutes each (default 5), one worker at a time
# (-parallel=1: the machine is shared). Fails if any target finds an input
# that crashes it, that allocates more than 256 MiB, or that runs longer than
# 1 s (the targets run every input under internal/fuzzguard, and this script
# turns its time bound on). A failing input is kept under the package's
# testdata/fuzz/<target>/ and replayed by every later `go test`; a bound
# crossed while an input ran is also appended to $STORMCHECK_FUZZ_LOG
# (default ./fuzz-breaches.log), since the fuzzer does not always show the
# output of a worker that died.
#
# Usage: scripts/fuzz.sh [MINUTES] [TARGET...]   e.g. scripts/fuzz.sh 1 FuzzParse
# Not part of CI.
set -u
cd "$(dirname "$0")/.."

minutes=${1:-5}
shift || true
case $minutes in
'' | *[!0-9]*) echo "usage: scripts/fuzz.sh [MINUTES] [TARGET...]" >&2; exit 2 ;;
esac

targets=(
	"./scenarios FuzzParse"
	"./scenarios/conformance FuzzParseRules"
	"./checks FuzzReadHistory"
	"./runner/smb2 FuzzNegotiateResponse"
	"./runner/smb2 FuzzSessionSetupResponse"
	"./runner/smb2 FuzzNTLMChallenge"
	"./runner/smb2 FuzzCreateResponse"
	"./runner/smb2 FuzzResponseStream"
	"./runner/smb2 FuzzTransformHeader"
)

export STORMCHECK_FUZZ_LIMITS=1
export STORMCHECK_FUZZ_LOG=${STORMCHECK_FUZZ_LOG:-$PWD/fuzz-breaches.log}
failed=()
for t in "${targets[@]}"; do
	pkg=${t% *} name=${t#* }
	if [ $# -gt 0 ] && [[ " $* " != *" $name "* ]]; then
		continue
	fi
	echo "== $name ($pkg), ${minutes}m"
	# -fuzzminimizetime 5s: the rule files are up to 100 KB and take tens of
	# milliseconds each on a busy machine, so the default 60 s of minimizing
	# each new interesting input left one run with a few thousand executions.
	if ! go test -run '^$' -fuzz "^${name}\$" -fuzztime "${minutes}m" -fuzzminimizetime 5s -parallel 1 "$pkg"; then
		failed+=("$name")
	fi
done
if [ ${#failed[@]} -gt 0 ]; then
	echo "FAILED: ${failed[*]} (the failing inputs are under testdata/fuzz/; bounds crossed, if any, in $STORMCHECK_FUZZ_LOG)" >&2
	exit 1
fi
echo "ok: every target ran ${minutes}m without a crash, an input over 256 MiB or over 1 s"
