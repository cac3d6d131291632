package runner

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
	"github.com/stormcheck/stormcheck/runner/azurite"
	"github.com/stormcheck/stormcheck/scenarios"
)

// MatrixScenario is one core scenario of the fault matrix: a workload, as
// a scenario's workloads item (YAML flow mapping).
type MatrixScenario struct {
	Name, Workload string
	// Known, when set, marks a violation Azurite shows with or without
	// faults (a finding in the README): a check whose every violation says
	// it is not held against the fault.
	Known string
}

// CoreScenarios are the fault matrix's scenarios: one per core workload,
// small enough to run in seconds.
var CoreScenarios = []MatrixScenario{
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
}

// ifMatchWriters are the core kinds whose counter writes carry If-Match
// (broken.strip-if-match applies to them).
var ifMatchWriters = []string{"blob.etag-counter", "table.etag-counter"}

// MatrixFault is the fault a matrix cell injects for kind: a window inside
// a short run, parameters that make it act often.
func MatrixFault(kind string) string {
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

// MatrixCell is one scenario under one fault kind.
type MatrixCell struct {
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
	// Elapsed is how long the run took, start-up included.
	Elapsed time.Duration
}

// MatrixOptions configure RunMatrix.
type MatrixOptions struct {
	Scenarios []MatrixScenario
	Kinds     []string
	// Duration is each run's load (default 5s).
	Duration time.Duration
	// Dir receives one results directory per cell (SCENARIO--KIND).
	Dir string
	// Log receives one line per cell as it ends.
	Log io.Writer
}

// RunMatrix runs every scenario under every fault kind, one after another,
// each a short run; the cells of a row share one managed Azurite.
func RunMatrix(ctx context.Context, o MatrixOptions) ([]MatrixCell, error) {
	if o.Duration <= 0 {
		o.Duration = 5 * time.Second
	}
	if err := os.MkdirAll(o.Dir, 0o755); err != nil {
		return nil, err
	}
	var cells []MatrixCell
	for _, s := range o.Scenarios {
		// One Azurite per row: its start is most of a short cell's time.
		// Each cell's resources are its run's own (run-prefixed), and a
		// target fault restarts it.
		inst, err := azurite.Start(ctx, azurite.Options{Version: scenarios.DefaultAzuriteVersion, WorkDir: filepath.Join(o.Dir, s.Name+"--azurite")})
		if err != nil {
			return cells, fmt.Errorf("matrix: row %s: %w", s.Name, err)
		}
		for _, kind := range o.Kinds {
			if ctx.Err() != nil {
				inst.Stop()
				return cells, ctx.Err()
			}
			c := runCell(ctx, s, kind, o, inst)
			if o.Log != nil {
				fmt.Fprintf(o.Log, "%s\n", c.Line())
			}
			cells = append(cells, c)
		}
		if err := inst.Stop(); err != nil && o.Log != nil {
			fmt.Fprintf(o.Log, "row %s: stopping Azurite: %v\n", s.Name, err)
		}
	}
	return cells, nil
}

// runCell runs one cell.
func runCell(ctx context.Context, s MatrixScenario, kind string, o MatrixOptions, inst *azurite.Instance) MatrixCell {
	c := MatrixCell{Scenario: s.Name, Fault: kind, Applies: true, Want: "no check fails", knownError: s.Known}
	if s.Known != "" {
		c.Want = "no check fails but for \"" + s.Known + "\" (an Azurite finding)"
	}
	spec := scenarios.FaultKinds[kind]
	if kind == "target.crash" {
		c.Want = "no check fails, or fails after the crash"
	}
	src := fmt.Sprintf("name: %s\nseed: 1\nduration: %s\ntimeout: 2s\nretry: {max_attempts: 4, base: 20ms, max: 200ms}\nworkloads:\n  - %s\nfaults:\n  - %s\n",
		s.Name, o.Duration, s.Workload, MatrixFault(kind))
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
	sum, err := Run(ctx, sc, Options{ResultsDir: filepath.Join(o.Dir, s.Name+"--"+kind), Target: TargetOptions{Azurite: inst}})
	c.Elapsed = time.Since(start)
	if err != nil {
		c.Err = err.Error()
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
func (c *MatrixCell) judge(sum *reports.Summary) bool {
	if c.Err != "" || sum == nil || len(c.Checks) == 0 {
		return false
	}
	spec := scenarios.FaultKinds[c.Fault]
	failed := map[string]bool{}
	for _, r := range c.Checks {
		if r.Verdict == checks.Fail && !(c.knownError != "" && spec.Check == "" && allKnown(r, c.knownError)) {
			failed[r.Check] = true
		}
		if r.Verdict == checks.Fail && c.knownError != "" && allKnown(r, c.knownError) {
			c.Known = true
		}
	}
	switch {
	case spec.Check != "":
		return failed[spec.Check]
	case c.Fault == "target.crash":
		return true // a failure after a crash is the true verdict (named in the report)
	}
	return len(failed) == 0
}

// Line is the cell in one line.
func (c MatrixCell) Line() string {
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
	return fmt.Sprintf("%s %-16s %-22s %s%s; want %s; %d attempts, %d unknown%s", mark, c.Scenario, c.Fault, c.verdicts(), known, c.Want,
		c.Attempts, c.Unknown, errText(c.Err))
}

func (c MatrixCell) verdicts() string {
	var v []string
	for _, r := range c.Checks {
		// Each check's verdict with how many operations it decided and,
		// where it judges them, what became of the unknown writes.
		s := fmt.Sprintf("%s %s (%d decided", r.Check, strings.ToUpper(string(r.Verdict)), r.Decided)
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

// WriteMatrixMarkdown writes the cells as a Markdown table: one row per
// scenario, one column per kind, each cell its verdicts in short (P pass,
// F fail, U undecided; n/a when it does not apply) and ok or BAD.
func WriteMatrixMarkdown(w io.Writer, cells []MatrixCell, kinds []string) error {
	var b strings.Builder
	b.WriteString("| scenario |")
	for _, k := range kinds {
		b.WriteString(" " + k + " |")
	}
	b.WriteString("\n|---|")
	for range kinds {
		b.WriteString("---|")
	}
	b.WriteString("\n")
	var order []string
	by := map[string]map[string]MatrixCell{}
	for _, c := range cells {
		if by[c.Scenario] == nil {
			by[c.Scenario] = map[string]MatrixCell{}
			order = append(order, c.Scenario)
		}
		by[c.Scenario][c.Fault] = c
	}
	for _, s := range order {
		b.WriteString("| " + s + " |")
		for _, k := range kinds {
			c, ok := by[s][k]
			switch {
			case !ok:
				b.WriteString("  |")
			case !c.Applies:
				b.WriteString(" n/a |")
			default:
				short := ""
				for _, r := range c.Checks {
					short += strings.ToUpper(string(r.Verdict)[:1])
				}
				mark := "ok"
				if c.Known {
					mark = "ok†"
				}
				if !c.OK {
					mark = "**BAD**"
				}
				b.WriteString(fmt.Sprintf(" %s %s %.0f%%k |", short, mark, 100*c.known()))
			}
		}
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// known is the share of the cell's attempts whose outcome is known.
func (c MatrixCell) known() float64 {
	if c.Attempts == 0 {
		return 0
	}
	return 1 - float64(c.Unknown)/float64(c.Attempts)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// allKnown reports whether every violation r lists (at most
// checks.MaxViolations) says known.
func allKnown(r checks.Result, known string) bool {
	if len(r.Violations) == 0 {
		return false
	}
	for _, v := range r.Violations {
		if !strings.Contains(v.Message, known) {
			return false
		}
	}
	return true
}
