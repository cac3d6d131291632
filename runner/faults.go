package runner

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/stormcheck/stormcheck/reports"
	"github.com/stormcheck/stormcheck/runner/faults"
	"github.com/stormcheck/stormcheck/runner/target"
	"github.com/stormcheck/stormcheck/scenarios"
)

// injectable lists the fault kinds this runner injects.
var injectable = map[string]bool{
	"http.server-busy": true, "http.internal-error": true, "http.timeout": true,
	"http.timeout-after": true, "http.drop-response": true, "http.duplicate": true, "http.reorder": true,
	"net.latency": true, "net.bandwidth": true, "net.reset-before": true, "net.reset-after": true,
	"net.blackhole": true, "net.cut-response": true,
	"target.pause": true, "target.stop": true, "target.crash": true,
	"broken.strip-if-match": true, "broken.second-lease": true, "broken.early-visible": true,
	"broken.partial-batch": true, "broken.stale-read": true, "broken.strip-appendpos": true,
	"broken.smb-share-access": true, "broken.smb-lock-shared": true, "broken.smb-keep-file": true, "broken.smb-lease-write": true,
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

// injection is a run's faults: the schedule the proxy stages read, and a
// watcher that acts on window edges (network toxics, the target process)
// and records every window as it really opened and closed.
type injection struct {
	sched  *faults.Schedule // nil: no faults
	target *target.Target
	logf   func(string, ...any)
	// cut is the run's context: the first interrupt (Ctrl-C) cuts a
	// restart short, and a target fault's window closed after it does not
	// restart Azurite (down names that fault; the target stays down).
	cut  context.Context
	down string

	stop, done chan struct{}
	mu         sync.Mutex
	open       []bool
	windows    []FaultWindow
}

// FaultWindow is one window of one fault as it happened: times since the
// load started.
type FaultWindow struct {
	Fault, Kind string
	From, To    time.Duration
	// Err says what went wrong opening or closing it ("" when nothing).
	Err string
}

// edgeEvery is how often the watcher looks for window edges.
const edgeEvery = 20 * time.Millisecond

func newInjection(sc *scenarios.Scenario) *injection {
	if len(sc.Faults) == 0 {
		return &injection{}
	}
	return &injection{sched: faults.NewSchedule(sc.Faults, sc.Seed, nil), open: make([]bool, len(sc.Faults))}
}

// schedule is the schedule for the proxy chain (nil: none).
func (in *injection) schedule() *faults.Schedule { return in.sched }

// begin opens the fault windows' clock at the start of the load and starts
// the watcher.
func (in *injection) begin(ctx context.Context, t time.Time, tgt *target.Target, logf func(string, ...any)) {
	if in.sched == nil {
		return
	}
	in.target, in.logf, in.cut = tgt, logf, ctx
	for _, f := range in.sched.Faults() {
		logf("fault %s: %s, %s", f.Name, f.Kind, windowText(f))
	}
	in.sched.Begin(t)
	in.stop, in.done = make(chan struct{}), make(chan struct{})
	go in.watch()
}

// watch opens and closes windows as the load's clock crosses their edges.
func (in *injection) watch() {
	defer close(in.done)
	tick := time.NewTicker(edgeEvery)
	defer tick.Stop()
	for {
		in.edges()
		select {
		case <-in.stop:
			return
		case <-tick.C:
		}
	}
}

// edges applies every edge crossed since the last look.
func (in *injection) edges() {
	el, running := in.sched.Elapsed()
	if !running {
		return
	}
	for i, f := range in.sched.Faults() {
		if act := f.Active(el); act != in.open[i] {
			in.edge(i, act, el)
		}
	}
}

// edge opens (or closes) fault i's window at el.
func (in *injection) edge(i int, opening bool, el time.Duration) {
	f := in.sched.Faults()[i]
	in.open[i] = opening
	err := in.act(f, opening)
	in.mu.Lock()
	defer in.mu.Unlock()
	if opening {
		in.windows = append(in.windows, FaultWindow{Fault: f.Name, Kind: f.Kind, From: el, To: -1})
	} else {
		for j := len(in.windows) - 1; j >= 0; j-- {
			if in.windows[j].Fault == f.Name && in.windows[j].To < 0 {
				in.windows[j].To = el
				break
			}
		}
	}
	if err != nil {
		in.logf("fault %s: %v", f.Name, err)
		for j := len(in.windows) - 1; j >= 0; j-- {
			if in.windows[j].Fault == f.Name {
				in.windows[j].Err = JoinErr(in.windows[j].Err, err.Error())
				break
			}
		}
	}
	if f.Family() != "http" && f.Family() != "broken" {
		verb := "lifted"
		if opening {
			verb = "on"
		}
		in.logf("fault %s: %s at +%s", f.Name, verb, el.Round(time.Millisecond))
	}
}

// act does what opening or closing f's window takes: HTTP stages read the
// schedule themselves; network faults add or remove toxics.
func (in *injection) act(f scenarios.Fault, opening bool) error {
	switch f.Family() {
	case "net":
		if in.target == nil || in.target.Network == nil {
			return errors.New("no network stage")
		}
		if opening {
			return in.target.Network.Open(f)
		}
		return in.target.Network.Close(f)
	case "target":
		if in.target == nil || in.target.Azurite == nil {
			return errors.New("no managed Azurite to act on")
		}
		az := in.target.Azurite
		switch {
		case f.Kind == "target.pause" && opening:
			return az.Pause()
		case f.Kind == "target.pause":
			return az.Resume()
		case opening:
			return az.Halt(f.Kind == "target.crash")
		}
		cut := in.cut
		if cut == nil {
			cut = context.Background()
		}
		if cut.Err() != nil {
			// Interrupted while Azurite was down: a restart could take up
			// to restartBound; the run ends without it (nothing is left:
			// the managed Azurite's data goes with it).
			in.setDown(f.Name)
			return errors.New("not restarted: the run was interrupted while Azurite was down")
		}
		ctx, cancel := context.WithTimeout(cut, restartBound)
		defer cancel()
		if err := az.Restart(ctx); err != nil {
			in.setDown(f.Name)
			if cut.Err() != nil {
				return fmt.Errorf("restart cut short by the interrupt: %w", err)
			}
			return err
		}
	}
	return nil
}

func (in *injection) setDown(fault string) {
	in.mu.Lock()
	defer in.mu.Unlock()
	in.down = fault
}

// targetDown names the target fault that left Azurite down (it was not
// restarted, or its restart failed), "" when Azurite is up.
func (in *injection) targetDown() string {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.down
}

// restartBound bounds bringing a stopped or crashed Azurite back.
const restartBound = 2 * time.Minute

// end lifts every fault, closes the windows still open and says what each
// fault did.
func (in *injection) End(logf func(string, ...any)) {
	if in.sched == nil {
		return
	}
	el, _ := in.sched.Elapsed()
	in.sched.End()
	if in.stop != nil {
		close(in.stop)
		<-in.done
	}
	for i := range in.sched.Faults() {
		if in.open[i] {
			in.edge(i, false, el)
		}
	}
	counts := in.sched.Counts()
	for _, f := range in.sched.Faults() {
		if f.Family() == "http" || f.Family() == "broken" {
			logf("fault %s: touched %d request(s)", f.Name, counts[f.Name])
		}
	}
}

// Windows returns the fault windows as they happened.
func (in *injection) Windows() []FaultWindow {
	in.mu.Lock()
	defer in.mu.Unlock()
	return append([]FaultWindow(nil), in.windows...)
}

func JoinErr(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
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

// summary returns the windows for the report, on the run's clock (the
// load started at loadStart).
func (in *injection) summary(loadStart time.Duration) []reports.FaultWindow {
	var out []reports.FaultWindow
	for _, w := range in.Windows() {
		if w.To <= w.From { // opened as the load ended
			continue
		}
		out = append(out, reports.FaultWindow{Fault: w.Fault, Kind: w.Kind, From: loadStart + w.From, To: loadStart + w.To, Err: w.Err})
	}
	return out
}
