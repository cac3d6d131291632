package azurite

import (
	"strconv"
	"strings"
)

// optionSince lists the command-line options stormcheck passes that not
// every Azurite 3.x release knows, with the first release that knows each
// (from Azurite's ChangeLog.md). An older release refuses an option it does
// not know and exits before listening ("The option "disableTelemetry" is
// unknown"), so Start leaves such options out for it.
var optionSince = map[string]string{
	// ChangeLog.md, "2025.02 Version 3.34.0": "Add `--disableTelemetry`
	// options disable telemetry data collection". Before 3.34.0 Azurite
	// collected no telemetry, so there is nothing to disable.
	"--disableTelemetry": "3.34.0",
}

// knowsOption reports whether Azurite version knows option. An option not
// in optionSince is known by every release stormcheck supports; a version
// that cannot be read as numbers (a private build) is assumed recent.
func knowsOption(version, option string) bool {
	since, ok := optionSince[option]
	if !ok {
		return true
	}
	v, ok1 := releaseNumbers(version)
	s, ok2 := releaseNumbers(since)
	if !ok1 || !ok2 {
		return true
	}
	for i := range v {
		if v[i] != s[i] {
			return v[i] > s[i]
		}
	}
	return true
}

// releaseNumbers reads MAJOR.MINOR.PATCH, ignoring a pre-release or build
// suffix (3.11.0-table-alpha.1 is 3.11.0).
func releaseNumbers(version string) ([3]int, bool) {
	var out [3]int
	core, _, _ := strings.Cut(version, "-")
	core, _, _ = strings.Cut(core, "+")
	parts := strings.Split(core, ".")
	if len(parts) != 3 {
		return out, false
	}
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 {
			return out, false
		}
		out[i] = n
	}
	return out, true
}
