package runner

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/runner/faults"
	"github.com/stormcheck/stormcheck/scenarios"
)

// injectable lists the fault kinds this runner injects.
var injectable = map[string]bool{
	"http.server-busy": true, "http.internal-error": true, "http.timeout": true,
	"http.timeout-after": true, "http.drop-response": true, "http.duplicate": true, "http.reorder": true,
}

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

// injection is a run's faults: the schedule the proxy stages read, and
// what acts on window edges.
type injection struct {
	sched *faults.Schedule // nil: no faults
}

func newInjection(sc *scenarios.Scenario) *injection {
	if len(sc.Faults) == 0 {
		return &injection{}
	}
	return &injection{sched: faults.NewSchedule(sc.Faults, sc.Seed, nil)}
}

// schedule is the schedule for the proxy chain (nil: none).
func (in *injection) schedule() *faults.Schedule { return in.sched }

// begin opens the fault windows' clock at the start of the load.
func (in *injection) begin(t time.Time, target *Target, logf func(string, ...any)) {
	if in.sched == nil {
		return
	}
	for _, f := range in.sched.Faults() {
		logf("fault %s: %s, %s", f.Name, f.Kind, windowText(f))
	}
	in.sched.Begin(t)
}

// end lifts every fault and says what each did.
func (in *injection) end(logf func(string, ...any)) {
	if in.sched == nil {
		return
	}
	in.sched.End()
	counts := in.sched.Counts()
	for _, f := range in.sched.Faults() {
		logf("fault %s: touched %d request(s)", f.Name, counts[f.Name])
	}
}

// windowText describes a fault's window.
func windowText(f scenarios.Fault) string {
	switch {
	case f.For == 0 && f.Every == 0:
		return "the whole load"
	case f.Every == 0:
		return fmt.Sprintf("from +%v for %v", f.At, f.For)
	}
	return fmt.Sprintf("every %v from +%v, for %v", f.Every, f.At, f.For)
}

// classify is classifyAnswer, then what an injected fault changes: the
// fault is named in the output, and the answer to a request delivered
// twice (http.duplicate) says nothing certain about the first delivery,
// which may have applied: any answer but a success becomes unknown.
func classify(resp *http.Response, err error, conflicts []Expect) (checks.Outcome, checks.Output) {
	outcome, out := classifyAnswer(resp, err, conflicts)
	var re *azcore.ResponseError
	if resp == nil && errors.As(err, &re) {
		resp = re.RawResponse
	}
	if resp == nil {
		return outcome, out
	}
	if out.Fault = resp.Header.Get(faults.Header); out.Fault != "" && outcome != checks.OK &&
		strings.HasSuffix(out.Fault, "(http.duplicate)") {
		outcome = checks.Unknown
	}
	return outcome, out
}
