package matrix

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/reports"
	"github.com/stormcheck/stormcheck/runner"
	"github.com/stormcheck/stormcheck/runner/azurite"
	"github.com/stormcheck/stormcheck/runner/target"
	"github.com/stormcheck/stormcheck/scenarios"
)

// Scenario is one core scenario of the fault matrix: a workload, as
// a scenario's workloads item (YAML flow mapping).
type Scenario struct {
	Name, Workload string
	// Known, when set, is the kind (checks.Violation.Kind) of a violation
	// Azurite shows with or without faults (a finding in the README): a
	// check whose every violation, listed or not, is of that kind is not
	// held against the fault.
	Known string
}

// CoreScenarios are the fault matrix's scenarios: one per core workload,
// small enough to run in seconds.
var CoreScenarios = []Scenario{
	{"etag-counter", "{name: w, kind: blob.etag-counter, actors: 4, keys: 2}", ""},
	{"create-once", "{name: w, kind: blob.create-once, actors: 3}", ""},
	{"lww", "{name: w, kind: blob.lww, actors: 3, keys: 2}", ""},
	// A read overlapping Put Block List can see the old content with the
	// new ETag on Azurite (README, Findings): a true violation, found with
	// or without faults, so the cell names it apart.
	{"block-commit", "{name: w, kind: blob.block-commit, actors: 3}", "ETag/value mismatch"},
	{"lease-mutex", "{name: w, kind: blob.lease-mutex, actors: 4, params: {hold: 200ms}}", ""},
	{"lease-lifecycle", "{name: w, kind: blob.lease-lifecycle, actors: 4, keys: 2}", ""},
	{"container-lease", "{name: w, kind: container.lease, actors: 3}", ""},
	{"table-counter", "{name: w, kind: table.etag-counter, actors: 4}", ""},
	{"table-batch", "{name: w, kind: table.batch, actors: 3, params: {batch_size: 6, rows: 6}}", ""},
	{"table-merge", "{name: w, kind: table.merge-vs-replace, actors: 3}", ""},
	{"queue-work", "{name: w, kind: queue.work, actors: 4, params: {visibility: 10s}}", ""},
	{"append-log", "{name: w, kind: blob.append-log, actors: 4, keys: 2}", ""},
	{"page-seqnum", "{name: w, kind: blob.page-seqnum-cas, actors: 4, keys: 2}", ""},
}

// ifMatchWriters are the core kinds whose counter writes carry If-Match
// (broken.strip-if-match applies to them).
var ifMatchWriters = []string{"blob.etag-counter", "table.etag-counter"}

// Fault is the fault a matrix cell injects for kind: a window inside
// a short run, parameters that make it act often.
func Fault(kind string) string {
	switch kind {
	case "http.reorder":
		return "{kind: http.reorder, name: f, hold: 100ms, fraction: 0.2}"
	case "net.latency":
		return "{kind: net.latency, name: f, latency: 20ms, jitter: 10ms, fraction: 0.5}"
	case "net.bandwidth":
		return "{kind: net.bandwidth, name: f, rate: 200, at: 1s, for: 1s}"
	case "net.cut-response":
		return "{kind: net.cut-response, name: f, bytes: 300, at: 1s, for: 1s}"
	}
	switch scenarios.FaultFamily(kind) {
	case "http":
		return "{kind: " + kind + ", name: f, fraction: 0.2}"
	case "net", "target":
		return "{kind: " + kind + ", name: f, at: 1s, for: 1s}"
	}
	return "{kind: " + kind + ", name: f}"
}

// Cell is one scenario under one fault kind.
type Cell struct {
	Scenario, Fault string
	// Applies is false for a broken promise whose check does not run on
	// the scenario's workload (the cell is not run).
	Applies bool
	// Want is what the cell must show: "no check fails", "CHECK fails", or
	// for a crash "no check fails, or a failure after the crash".
	Want string
	// Checks are the verdicts; Err the run's error, if any.
	Checks []checks.Result
	Err    string
	// Attempts and Unknown count the load's attempts and those of unknown
	// outcome.
	Attempts, Unknown int64
	// OK says whether the cell shows what it must.
	OK bool
	// Known is set when a check failed only with the scenario's known
	// Azurite finding (MatrixScenario.Known).
	Known      bool
	knownError string
	// Forgot is set when a lease check failed only after the cell's
	// restart (target.stop): it passes on the history before the restart,
	// checked alone, and Azurite's lease answers after a restart depend on
	// what it restored of them (README, Findings).
	Forgot bool
	// history is the cell's recorded history, kept for a target.stop cell
	// (restartForgot).
	history []checks.Op
	// Floors are the share of the operations each check could judge that
	// it must have decided (MatrixFloor), by check; Under names the checks
	// below their floor.
	Floors map[string]float64
	Under  []string
	// Elapsed is how long the run took, start-up included.
	Elapsed time.Duration
}

// Verdict sums the cells up in one line, and says whether the
// matrix shows what it must: no check failing on unmodified Azurite, no
// check under its floor of operations decided, every broken promise
// caught, every cell run.
func Verdict(cells []Cell) (string, bool) {
	var falseV, under, uncaught, broken []string
	ran := 0
	for _, c := range cells {
		if !c.Applies {
			continue
		}
		ran++
		name := c.Scenario + " x " + c.Fault
		switch {
		case c.OK:
		case c.Err != "":
			broken = append(broken, name)
		case scenarios.FaultKinds[c.Fault].Check != "":
			uncaught = append(uncaught, name)
		case len(c.Under) > 0 && c.falseViolation():
			falseV = append(falseV, name)
			under = append(under, name)
		case len(c.Under) > 0:
			under = append(under, name)
		default:
			falseV = append(falseV, name)
		}
	}
	if len(falseV)+len(under)+len(uncaught)+len(broken) == 0 {
		return fmt.Sprintf("matrix: ok: %d cells run, no check failed on unmodified Azurite, every check at or above its floor of operations decided, every broken promise caught", ran), true
	}
	var parts []string
	add := func(what string, names []string) {
		if len(names) > 0 {
			parts = append(parts, fmt.Sprintf("%d %s (%s)", len(names), what, strings.Join(names, ", ")))
		}
	}
	add("with a check failing on unmodified Azurite", falseV)
	add("under the floor of operations decided", under)
	add("broken promises not caught", uncaught)
	add("that did not run to the end", broken)
	return fmt.Sprintf("matrix: FAILED: of %d cells run, %s", ran, strings.Join(parts, "; ")), false
}

// falseViolation reports whether a check failed in a cell that must have
// none.
func (c Cell) falseViolation() bool {
	if c.Fault == "target.crash" || scenarios.FaultKinds[c.Fault].Check != "" {
		return false
	}
	for _, r := range c.Checks {
		if r.Verdict == checks.Fail && !c.Known && !c.Forgot {
			return true
		}
	}
	return false
}

// Options configure RunMatrix.
type Options struct {
	Scenarios []Scenario
	Kinds     []string
	// Duration is each run's load (default 5s).
	Duration time.Duration
	// Dir receives one results directory per cell (SCENARIO--KIND).
	Dir string
	// Log receives one line per cell as it ends.
	Log io.Writer
}

// Run runs every scenario under every fault kind, one after another,
// each a short run; the cells of a row share one managed Azurite.
func Run(ctx context.Context, o Options) ([]Cell, error) {
	if o.Duration <= 0 {
		o.Duration = 5 * time.Second
	}
	if err := os.MkdirAll(o.Dir, 0o755); err != nil {
		return nil, err
	}
	var cells []Cell
	for _, s := range o.Scenarios {
		// One Azurite per row: its start is most of a short cell's time.
		// Each cell's resources are its run's own (run-prefixed), and a
		// target fault restarts it.
		// An SMB row's cells each start their own Samba (in a fraction of a
		// second), under the cell's results.
		var inst *azurite.Instance
		if !smbRow(s) {
			var err error
			inst, err = azurite.Start(ctx, azurite.Options{Version: scenarios.DefaultAzuriteVersion, WorkDir: filepath.Join(o.Dir, s.Name+"--azurite")})
			if err != nil {
				return cells, fmt.Errorf("matrix: row %s: %w", s.Name, err)
			}
		}
		for _, kind := range o.Kinds {
			if ctx.Err() != nil {
				if inst != nil {
					inst.Stop()
				}
				return cells, ctx.Err()
			}
			c := runCell(ctx, s, kind, o, inst)
			if o.Log != nil {
				fmt.Fprintf(o.Log, "%s\n", c.Line())
			}
			cells = append(cells, c)
		}
		if inst == nil {
			continue
		}
		if err := inst.Stop(); err != nil && o.Log != nil {
			fmt.Fprintf(o.Log, "row %s: stopping Azurite: %v\n", s.Name, err)
		}
	}
	return cells, nil
}

// runCell runs one cell.
func runCell(ctx context.Context, s Scenario, kind string, o Options, inst *azurite.Instance) Cell {
	c := Cell{Scenario: s.Name, Fault: kind, Applies: true, Want: "no check fails", knownError: s.Known}
	if s.Known != "" {
		c.Want = "no check fails but for \"" + s.Known + "\" (an Azurite finding)"
	}
	smb := smbRow(s)
	if ok, why := smbApplies(kind); smb && !ok {
		c.Applies, c.OK, c.Want = false, true, why
		return c
	}
	if scenarios.IsSMBFault(kind) && !smb {
		c.Applies, c.OK, c.Want = false, true, "n/a (an SMB fault: the core scenarios run on Azurite)"
		return c
	}
	spec := scenarios.FaultKinds[kind]
	if kind == "target.crash" {
		c.Want = "no check fails, or fails after the crash"
	}
	src := fmt.Sprintf("name: %s\nseed: 1\nduration: %s\ntimeout: 2s\nretry: {max_attempts: 4, base: 20ms, max: 200ms}\nworkloads:\n  - %s\nfaults:\n  - %s\n",
		s.Name, o.Duration, s.Workload, Fault(kind))
	if smb {
		src = "target: {kind: samba}\n" + src
	}
	sc, err := scenarios.Parse(s.Name+".yaml", []byte(src))
	if err != nil {
		c.Err = err.Error()
		return c
	}
	if spec.Check != "" {
		c.Want = spec.Check + " fails"
		if !contains(sc.Checks, spec.Check) {
			c.Applies, c.OK, c.Want = false, true, "n/a ("+spec.Check+" does not run on "+sc.Workloads[0].Kind+")"
			return c
		}
		if kind == "broken.strip-if-match" && !contains(ifMatchWriters, sc.Workloads[0].Kind) {
			c.Applies, c.OK, c.Want = false, true, "n/a ("+sc.Workloads[0].Kind+" does not write under If-Match)"
			return c
		}
	}
	start := time.Now()
	dir := filepath.Join(o.Dir, s.Name+"--"+kind)
	to := target.Options{Azurite: inst}
	if smb {
		to = target.Options{} // the run starts a managed Samba under dir
	}
	sum, err := runner.Run(ctx, sc, runner.Options{ResultsDir: dir, Target: to})
	c.Elapsed = time.Since(start)
	if err != nil {
		c.Err = err.Error()
	}
	if kind == "target.stop" && err == nil {
		if herr := checks.ReadHistoryFile(runner.HistoryPath(dir), func(op *checks.Op) error {
			c.history = append(c.history, *op)
			return nil
		}); herr != nil {
			c.Err = herr.Error()
		}
	}
	if sum != nil {
		c.Checks = sum.Checks
		for _, w := range sum.Workloads {
			for _, op := range w.Ops {
				c.Attempts += op.Count
				c.Unknown += op.Outcomes[checks.Unknown.String()]
			}
		}
		if sum.ChecksError != "" && c.Err == "" {
			c.Err = sum.ChecksError
		}
	}
	c.OK = c.judge(sum)
	return c
}

// judge says whether the cell shows what it must.
func (c *Cell) judge(sum *reports.Summary) bool {
	if c.Err != "" || sum == nil || len(c.Checks) == 0 {
		return false
	}
	spec := scenarios.FaultKinds[c.Fault]
	failed := map[string]bool{}
	for _, r := range c.Checks {
		if r.Verdict == checks.Fail && c.Fault == "target.stop" && leaseChecks[r.Check] && restartForgot(r, sum.Faults, c.history) {
			c.Forgot = true
			continue
		}
		if r.Verdict == checks.Fail && !(c.knownError != "" && spec.Check == "" && allKnown(r, c.knownError)) {
			failed[r.Check] = true
		}
		if r.Verdict == checks.Fail && c.knownError != "" && allKnown(r, c.knownError) {
			c.Known = true
		}
	}
	if spec.Check != "" {
		return failed[spec.Check]
	}
	// Every check decided at least the floor's share of what it could
	// judge (a check answering undecided to everything is not done).
	c.Floors = map[string]float64{}
	for _, r := range c.Checks {
		c.Floors[r.Check] = Floor(c.Fault, r.Check)
		if r.Share() < c.Floors[r.Check] {
			c.Under = append(c.Under, fmt.Sprintf("%s %.1f%% < %.0f%%", r.Check, 100*r.Share(), 100*c.Floors[r.Check]))
		}
	}
	if c.Fault == "target.crash" {
		return true // a failure after a crash is the true verdict (named in the report)
	}
	return len(failed) == 0 && len(c.Under) == 0
}

// Floor is the share of the operations it could judge that check
// must decide in a cell under kind (README, "The fault matrix", says why):
// DecidedFloor; 0 for a crash, which may lose the state a check needs, and
// for a broken promise, whose cell is judged on its check failing.
func Floor(kind, check string) float64 {
	if kind == "target.crash" || scenarios.FaultFamily(kind) == "broken" {
		return 0
	}
	if f, ok := smbFloors[check]; ok {
		return f
	}
	return DecidedFloor
}

// DecidedFloor: a register, table or queue check settles a write of unknown
// outcome by a later read, a lease check a lease call of unknown outcome by
// the workload's next call with its lease id, so a fault that touches a
// fifth of the requests (the matrix's faults: 20% of requests, or a 1 s
// window of a 5 s load) leaves at most about a fifth open; half is the
// floor, with room for the retries a fault adds.
const DecidedFloor = 0.5

// leaseChecks are the checks judged on a lease's state.
var leaseChecks = map[string]bool{"lease-exclusion": true, "lease-protocol": true, "container-lease": true}

// restartForgot reports whether lease check r, failed on the whole
// history, passes on the part of it sent before the first restart, checked
// alone: then every violation involves a call after the restart, and
// Azurite 3.37.0's lease answers after a restart are its finding, not the
// fault's (it forgets leases, and answers the first calls after it from a
// state it then changes: TestAzuriteForgetsLeasesOnRestart, README
// Findings). This holds for every violation, listed among the first
// checks.MaxViolations or not. A call sent before the restart completed was
// served, if at all, by the instance that stopped.
func restartForgot(r checks.Result, ws []reports.FaultWindow, history []checks.Op) bool {
	cut := int64(-1)
	for _, w := range ws {
		if w.Kind == "target.stop" && (cut < 0 || int64(w.To) < cut) {
			cut = int64(w.To)
		}
	}
	if cut < 0 || len(history) == 0 {
		return false
	}
	var before []checks.Op
	for _, op := range history {
		if op.Workload == r.Workload && op.Call < cut {
			before = append(before, op)
		}
	}
	c, err := checks.New(r.Check)
	return err == nil && checks.Run(before, c)[0].Verdict != checks.Fail
}

// Line is the cell in one line.
func (c Cell) Line() string {
	mark := "ok  "
	if !c.OK {
		mark = "BAD "
	}
	if !c.Applies {
		return fmt.Sprintf("%s %-16s %-22s %s", mark, c.Scenario, c.Fault, c.Want)
	}
	known := ""
	if c.Known {
		known = " (the failure is the known Azurite finding)"
	}
	under := ""
	if len(c.Under) > 0 {
		under = "; UNDER THE FLOOR of operations decided: " + strings.Join(c.Under, ", ")
	}
	if c.Forgot {
		known += " (the lease failures involve calls after the restart: Azurite's leases do not survive one)"
	}
	return fmt.Sprintf("%s %-16s %-22s %s%s; want %s; %d attempts, %d unknown%s%s", mark, c.Scenario, c.Fault, c.verdicts(), known, c.Want,
		c.Attempts, c.Unknown, under, errText(c.Err))
}

func (c Cell) verdicts() string {
	var v []string
	for _, r := range c.Checks {
		// Each check's verdict with how many operations it decided and,
		// where it judges them, what became of the unknown writes.
		s := fmt.Sprintf("%s %s (%.0f%% decided: %d of %d", r.Check, strings.ToUpper(string(r.Verdict)), 100*r.Share(), r.Decided, r.Judgeable)
		if u := r.Unknown; u != nil {
			s += fmt.Sprintf("; unknown writes %d applied, %d not, %d open", u.Applied, u.NotApplied, u.Open)
		}
		v = append(v, s+")")
	}
	if len(v) == 0 {
		return "no checks"
	}
	return strings.Join(v, ", ")
}

func errText(e string) string {
	if e == "" {
		return ""
	}
	if i := strings.IndexByte(e, '\n'); i >= 0 {
		e = e[:i]
	}
	return "; error: " + e
}

// WriteMarkdown writes the cells as a Markdown table: one row per
// fault kind, one column per scenario, each cell its verdicts in short (P
// pass, F fail, U undecided, in the scenario's check order; n/a when it does
// not apply), ok or BAD (UNDER when a check decided less than the floor),
// the smallest share decided over its checks, and the share of unknown
// writes the checks resolved (applied or not; "-" when there were none).
func WriteMarkdown(w io.Writer, cells []Cell, kinds []string) error {
	var order []string
	by := map[string]map[string]Cell{}
	for _, c := range cells {
		if by[c.Scenario] == nil {
			by[c.Scenario] = map[string]Cell{}
			order = append(order, c.Scenario)
		}
		by[c.Scenario][c.Fault] = c
	}
	var b strings.Builder
	b.WriteString("| fault kind |")
	for _, s := range order {
		b.WriteString(" " + s + " |")
	}
	b.WriteString("\n|---|")
	for range order {
		b.WriteString("---|")
	}
	b.WriteString("\n")
	for _, k := range kinds {
		b.WriteString("| `" + k + "` |")
		for _, s := range order {
			c, ok := by[s][k]
			switch {
			case !ok:
				b.WriteString("  |")
			case !c.Applies:
				b.WriteString(" n/a |")
			default:
				b.WriteString(" " + c.Short() + " |")
			}
		}
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// Short is the cell as the Markdown table shows it, e.g. "PP ok 97% r40/41":
// verdicts, mark, the smallest share decided, unknown writes resolved.
func (c Cell) Short() string {
	short := ""
	for _, r := range c.Checks {
		short += strings.ToUpper(string(r.Verdict)[:1])
	}
	if short == "" {
		short = "-"
	}
	mark := "ok"
	if c.Known {
		mark = "ok†"
	}
	if c.Forgot {
		mark = "ok‡"
	}
	if !c.OK {
		mark = "**BAD**"
		if len(c.Under) > 0 {
			mark = "**UNDER**"
		}
	}
	out := fmt.Sprintf("%s %s %.0f%%", short, mark, 100*c.MinShare())
	if res, all := c.Resolved(); all > 0 {
		out += fmt.Sprintf(" r%d/%d", res, all)
	}
	return out
}

// MinShare is the smallest share decided over the cell's checks (0 when
// it has none).
func (c Cell) MinShare() float64 {
	if len(c.Checks) == 0 {
		return 0
	}
	m := 1.0
	for _, r := range c.Checks {
		m = min(m, r.Share())
	}
	return m
}

// Resolved is, of the checks that judge unknown writes, the one that
// judged most of them: how many it resolved (applied or not applied) of
// all it saw. Two checks of one scenario judge the same writes, so they
// are not added up.
func (c Cell) Resolved() (resolved, all int) {
	for _, r := range c.Checks {
		if u := r.Unknown; u != nil {
			n := u.Applied + u.NotApplied + u.Open
			if n > all || n == all && u.Applied+u.NotApplied > resolved {
				resolved, all = u.Applied+u.NotApplied, n
			}
		}
	}
	return resolved, all
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// allKnown reports whether every violation of r, listed or not, is of the
// kind known (checks.Result.Kinds).
func allKnown(r checks.Result, known string) bool {
	return r.Total > 0 && r.Kinds[known] == r.Total
}
