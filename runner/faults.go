package runner

import (
	"fmt"
	"strings"

	"github.com/stormcheck/stormcheck/scenarios"
)

// injectable lists the fault kinds this runner injects.
var injectable = map[string]bool{}

// checkFaults refuses a scenario with a fault this runner cannot inject:
// a fault silently not injected would make its verdicts mean nothing.
func checkFaults(fs []scenarios.Fault) error {
	var missing []string
	for _, f := range fs {
		if !injectable[f.Kind] {
			missing = append(missing, fmt.Sprintf("%s (line %d, kind %s)", f.Name, f.Line, f.Kind))
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("faults: not injected by this build: %s", strings.Join(missing, ", "))
	}
	return nil
}
