package reports

import (
	"fmt"
	"strings"
	"time"

	"github.com/stormcheck/stormcheck/checks"
)

// FaultWindow is one window of one injected fault and what became of the
// attempts that started in it.
type FaultWindow struct {
	Fault string `json:"fault"`
	Kind  string `json:"kind"`
	// From and To are the window's edges since the run's time zero (the
	// history's clock).
	From time.Duration `json:"from_ns"`
	To   time.Duration `json:"to_ns"`
	// Err says what went wrong opening or closing the window.
	Err string `json:"err,omitempty"`
	// Attempts started in the window, by outcome; Retries are the
	// attempts after a workload's first (attempt > 1); Touched the ones the
	// fault itself touched (its name is in the attempt's out.fault).
	Attempts  int64 `json:"attempts"`
	OK        int64 `json:"ok"`
	Unknown   int64 `json:"unknown"`
	Throttled int64 `json:"throttled"`
	Conflict  int64 `json:"conflict"`
	Error     int64 `json:"error"`
	Retries   int64 `json:"retries"`
	Touched   int64 `json:"touched"`
}

// Broken reports whether the window's fault breaks a promise on purpose.
func (f FaultWindow) Broken() bool { return strings.HasPrefix(f.Kind, "broken.") }

// Crash reports whether the window's fault crashed the target.
func (f FaultWindow) Crash() bool { return f.Kind == "target.crash" }

// FaultTally counts, from a history pass, the attempts started in each
// fault window of ws (filled in place).
type FaultTally struct {
	Ws []FaultWindow
	// injected counts throttled answers a fault injected, by workload and
	// fault (see WorkloadSummary.Injected).
	injected map[string]map[string]int64
}

// NewFaultTally returns a tally over ws (nil: nothing to count).
func NewFaultTally(ws []FaultWindow) *FaultTally {
	if len(ws) == 0 {
		return nil
	}
	return &FaultTally{Ws: ws}
}

// Observe counts op in every window it started in.
func (t *FaultTally) Observe(op *checks.Op) {
	if t == nil || op.Actor < 0 { // set-up and final reads are not load
		return
	}
	if op.Outcome == checks.Throttled && op.Out.Fault != "" {
		if t.injected == nil {
			t.injected = map[string]map[string]int64{}
		}
		if t.injected[op.Workload] == nil {
			t.injected[op.Workload] = map[string]int64{}
		}
		t.injected[op.Workload][op.Out.Fault]++
	}
	at := time.Duration(op.Call)
	for i := range t.Ws {
		w := &t.Ws[i]
		if at < w.From || at >= w.To {
			continue
		}
		w.Attempts++
		switch op.Outcome {
		case checks.OK:
			w.OK++
		case checks.Unknown:
			w.Unknown++
		case checks.Throttled:
			w.Throttled++
		case checks.Conflict:
			w.Conflict++
		default:
			w.Error++
		}
		if op.Attempt > 1 {
			w.Retries++
		}
		if op.Out.Fault != "" && strings.HasPrefix(op.Out.Fault, w.Fault+" (") {
			w.Touched++
		}
	}
}

// Apply sets each workload's Injected throttled answers in s.
func (t *FaultTally) Apply(s *Summary) {
	if t == nil {
		return
	}
	for i := range s.Workloads {
		if m := t.injected[s.Workloads[i].Name]; len(m) > 0 {
			s.Workloads[i].Injected = m
		}
	}
}

// InjectedThrottled is how many of w's throttled answers faults injected.
func InjectedThrottled(w WorkloadSummary) int64 {
	var n int64
	for _, c := range w.Injected {
		n += c
	}
	return n
}

// BreaksLine is the report's first line when the run broke a promise of
// the service on purpose ("" when it did not).
func BreaksLine(s *Summary) string {
	var names []string
	seen := map[string]bool{}
	for _, f := range s.Faults {
		if f.Broken() && !seen[f.Fault] {
			seen[f.Fault] = true
			names = append(names, f.Fault+" ("+f.Kind+")")
		}
	}
	if len(names) == 0 {
		return ""
	}
	return "THIS RUN BREAKS THE SERVICE ON PURPOSE: " + strings.Join(names, ", ") + "; a failing check is the expected result"
}

func FirstCrash(ws []FaultWindow) *FaultWindow {
	for i := range ws {
		if ws[i].Crash() {
			return &ws[i]
		}
	}
	return nil
}

func AnyFailed(rs []checks.Result) bool {
	for _, r := range rs {
		if r.Verdict == checks.Fail {
			return true
		}
	}
	return false
}

func Secs(d time.Duration) string {
	return fmt.Sprintf("%.1fs", d.Seconds())
}
