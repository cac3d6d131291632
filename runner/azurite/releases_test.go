package azurite

import (
	"slices"
	"testing"
)

func TestArgsFollowTheRelease(t *testing.T) {
	for _, tc := range []struct {
		version   string
		telemetry bool
	}{
		{"3.37.0", true},
		{"3.34.0", true},
		{"3.33.0", false}, // refuses --disableTelemetry: "The option "disableTelemetry" is unknown"
		{"3.30.0", false},
		{"3.26.0", false},
		{"3.11.0-table-alpha.1", false},
		{"4.0.0", true},
		{"private-build", true}, // unreadable: assumed recent
	} {
		args := azuriteArgs(Options{Version: tc.version}, "/data")
		if got := slices.Contains(args, "--disableTelemetry"); got != tc.telemetry {
			t.Errorf("azurite %s: --disableTelemetry passed = %v, want %v (args %v)", tc.version, got, tc.telemetry, args)
		}
		for _, must := range []string{"--blobPort", "--location", "--skipApiVersionCheck"} {
			if !slices.Contains(args, must) {
				t.Errorf("azurite %s: %s missing from %v", tc.version, must, args)
			}
		}
	}
}
