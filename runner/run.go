package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/stormcheck/stormcheck/reports"
	"github.com/stormcheck/stormcheck/runner/cleanup"
	"github.com/stormcheck/stormcheck/runner/stage"
	"github.com/stormcheck/stormcheck/runner/target"
	"github.com/stormcheck/stormcheck/runner/workload"
	"github.com/stormcheck/stormcheck/scenarios"
)

// Options are how the command line runs a scenario.
type Options struct {
	// ResultsDir receives every file of the run; it is created and must not
	// hold an earlier run's results.
	ResultsDir string
	Target     target.Options
	// Log receives one line per phase ("starting Azurite", "final reads").
	Log io.Writer
	// Progress, if set, is called about every ProgressEvery with live figures.
	Progress      func(Progress)
	ProgressEvery time.Duration
	// Abort, the second interrupt, skips the final reads and shortens the
	// cleanup to CleanupAfterAbort. The run's ctx is the first interrupt
	// (stop the load).
	Abort context.Context
	// Exporters publish the run's metrics live (runner/metricsexport:
	// Prometheus, OTLP). Each is attached to the run's metrics as soon as
	// they exist; the caller starts and closes them.
	Exporters []Exporter
	// Abandon, the third interrupt, stops the cleanup: what it did not
	// delete is left, and the summary says so (stormcheck cleanup --run).
	Abandon context.Context
	// UnreachableAfter overrides the scenario's unreachable_after.
	UnreachableAfter time.Duration
	// Shard, when set, runs one shard of a sharded run (see Shard).
	Shard *Shard
	// Stage, if set, is told each stage as the run enters it, so that a
	// Ctrl-C can say what it changes there.
	Stage func(Stage)
}

// Stage is where a run is: what an interrupt can still stop.
type Stage int32

// A run's stages, in order; a run that fails early skips to the cleanup.
const (
	StageLoad       Stage = iota // opening the target, the setup and the load
	StageFinalReads              // the load is over: the final reads
	StageCleanup                 // deleting the run's resources
	StageChecks                  // the checks, then writing the results
)

// stage tells o.Stage that the run entered st.
func (o Options) stage(st Stage) {
	if o.Stage != nil {
		o.Stage(st)
	}
}

// Exporter publishes a run's live metrics (see runner/metricsexport).
type Exporter interface {
	Attach(m *reports.Metrics)
}

// Progress is a live snapshot for progress bars.
type Progress struct {
	Elapsed   time.Duration
	Workloads []WorkloadProgress
}

// WorkloadProgress is one workload's live figures and its bounds.
type WorkloadProgress struct {
	reports.WorkloadProgress
	// Limit is the load phase's length (0: iterations only).
	Limit time.Duration
	// Bound is the iteration bound (0: none); Iterations the started ones.
	Bound, Iterations int64
	Done              bool
}

// File names inside a results directory.
const (
	HistoryFile = "history.jsonl.zst"
	// LegacyHistoryFile is the uncompressed history of older runs, still read.
	LegacyHistoryFile = "history.jsonl"
	SummaryFile       = "summary.json"
	ScenarioFile      = "scenario.yaml"
	AzuriteLog        = "azurite.log"
	HlogDir           = "hlog"
)

type running struct {
	plan loadPlan
	// skip: this shard runs none of the workload's load.
	skip  bool
	env   *workload.Env
	wl    workload.Workload
	stats ExecStats
	done  bool
}

// Run runs a scenario end to end: open the target, set up, load, final
// reads, cleanup, checks. Whatever happens, the results directory receives
// the history recorded so far and a summary (written atomically); the error
// is a harness or target error, never a check verdict.
//
// What stops a run early, and what then still happens:
//   - ctx (the first Ctrl-C): the load stops; final reads, cleanup and
//     checks still run, each within its bound.
//   - o.Abort (the second): the final reads are skipped; the cleanup still
//     runs, within CleanupAfterAbort.
//   - o.Abandon (the third): the cleanup stops; what it did not delete is
//     listed in the summary, for `stormcheck cleanup --run ID`.
//   - a target that answers nothing for the scenario's unreachable_after:
//     an ERROR line, the load stops, no final reads, a short cleanup, and
//     the error says which endpoint was silent since when.
//   - the first write the history file refuses (a full disk): the load
//     stops; the history keeps every whole record written before.
func Run(ctx context.Context, sc *scenarios.Scenario, o Options) (*reports.Summary, error) {
	if o.Abort == nil {
		o.Abort = context.Background()
	}
	if o.Abandon == nil {
		o.Abandon = context.Background()
	}
	logf := func(format string, a ...any) {
		if o.Log != nil {
			fmt.Fprintf(o.Log, format+"\n", a...)
		}
	}
	sum := &reports.Summary{Scenario: sc.Name, File: sc.File, Seed: sc.Seed, Started: o.Shard.now(), Files: map[string]string{}}
	if err := checkShard(sc, o); err != nil {
		return sum, err
	}
	if err := prepareResults(o.ResultsDir, sc); err != nil {
		return sum, err
	}
	sum.Files["scenario"] = ScenarioFile
	if err := checkFaults(sc.Faults); err != nil {
		return sum, err
	}

	names := make([]string, len(sc.Workloads))
	goals := map[string]reports.Goal{}
	for i, w := range sc.Workloads {
		names[i] = w.Name
		if g, ok := reports.GoalOf(w.Kind); ok {
			goals[w.Name] = g
		}
	}
	totalActors := 0
	for _, w := range sc.Workloads {
		totalActors += w.Actors
	}
	to := o.Target
	to.WorkDir = o.ResultsDir
	to.Emulation, to.Capacity = sc.Emulation, sc.Capacity
	inj := newInjection(sc)
	to.Faults = inj.schedule()
	to.MaxConns = totalActors + 16
	to.Uses |= target.ScenarioServices(sc)
	if to.Progress == nil {
		to.Progress = o.Log
	}
	if sc.Target.Kind == scenarios.TargetAzurite && to.ConnectionString == "" {
		logf("starting Azurite %s", sc.Target.AzuriteVersion)
	}
	// Time zero is when the target is ready: its start (for a managed
	// Azurite, the npm install on first use and the start) is set-up,
	// reported apart as Startup and not in Elapsed or any per-second series.
	opening := time.Now()
	tgt, targetErr := target.Open(ctx, sc.Target, to)
	sum.Startup = time.Since(opening)
	start := time.Now()
	metrics := reports.NewMetrics(reports.MetricsOptions{HlogDir: filepath.Join(o.ResultsDir, HlogDir), Start: start,
		Workloads: names, Goals: goals, Export: len(o.Exporters) > 0})
	for _, e := range o.Exporters {
		e.Attach(metrics)
	}
	rec, err := workload.NewRecorder(filepath.Join(o.ResultsDir, HistoryFile), start, metrics)
	if err != nil {
		if tgt != nil {
			_ = tgt.Close()
		}
		return sum, err
	}
	sum.Started = rec.Start()
	if o.Shard != nil {
		sum.Started = sum.Started.Add(o.Shard.ClockSkew)
		sum.Shard = &reports.ShardInfo{Index: o.Shard.Index, Count: o.Shard.Count, RunID: o.Shard.RunID, ClockOffsetBound: sc.ClockOffsetBound}
		if !o.Shard.StartAt.IsZero() {
			sum.Shard.StartAt = o.Shard.StartAt.UTC().Format(time.RFC3339Nano)
		}
	}
	sum.Files["history"] = HistoryFile

	// trouble ends the load early: the target is unreachable, or the
	// history cannot be written. Its cause is the run's error.
	trouble, troubleNow := context.WithCancelCause(context.Background())
	// The load's context is the interrupt's child, and trouble cancels it
	// in the same call: once either returns, no call of the load starts.
	loadCtx, stopLoad := context.WithCancelCause(ctx)
	defer stopLoad(nil)
	stopForTrouble := func(err error) {
		troubleNow(err)
		stopLoad(err)
	}
	defer stopForTrouble(nil)
	go func() {
		select {
		case <-rec.Failed():
			err := fmt.Errorf("writing %s: %w: stopped the load at the first failed write; the history keeps every record written before it", HistoryFile, rec.Err())
			logf("ERROR: %v", err)
			stopForTrouble(err)
		case <-trouble.Done():
		}
	}()
	// What actors still send once loadCtx is done (lease releases) draws
	// on this stage: StoppingBound from the stop, cut by a second Ctrl-C;
	// nothing at all once the target was declared unreachable.
	stopStage := &stage.Stopping{Cut: stage.Cut{Ctx: o.Abort, Why: stage.ErrInterruptedAgain}, More: []stage.Cut{{Ctx: trouble, Why: nil}}, Logf: logf}

	var runs []*running
	var runID string
	stopWatch := func() {}
	finish := func(runErr error) (*reports.Summary, error) {
		if ctx.Err() != nil { // Ctrl-C, possibly while Azurite was starting
			sum.Interrupted = true
		}
		o.stage(StageCleanup)
		switch {
		case runID != "" && inj.targetDown() != "" && tgt.Managed():
			logf("cleanup: skipped, Azurite is down (fault %s); nothing is left: the managed Azurite's data is deleted with it", inj.targetDown())
		case runID != "":
			cleanupAfterRun(tgt, runID, trouble, o, sum, logf)
			if sum.Shard != nil {
				sum.Shard.Cleanup = true
			}
		}
		if sum.Shard != nil {
			var c workload.DateClock
			for _, r := range runs {
				r.env.ClockOffset(&c)
			}
			sum.Shard.ClockOffset = c.Offset()
		}
		stopWatch() // the checks send nothing: a silence now means nothing
		o.stage(StageChecks)
		if cause := context.Cause(trouble); trouble.Err() != nil && (runErr == nil || errors.Is(runErr, context.Canceled)) {
			runErr = cause
		}
		return finishRun(sc, o, sum, rec, metrics, runs, runErr, logf)
	}

	if targetErr != nil {
		if !strings.HasPrefix(targetErr.Error(), "target: ") { // (OpenTarget's own errors say it already: "target: target: ...")
			targetErr = fmt.Errorf("target: %w", targetErr)
		}
		return finish(targetErr)
	}
	sum.Target = tgt.Desc
	defer tgt.Close()
	if tgt.AzuriteLog != "" {
		// Both absolute: the results directory is often given relative.
		dir, derr := filepath.Abs(o.ResultsDir)
		log, lerr := filepath.Abs(tgt.AzuriteLog)
		if rel, err := filepath.Rel(dir, log); derr == nil && lerr == nil && err == nil {
			sum.Files["azurite log"] = rel
		}
	}
	unreachableAfter := sc.UnreachableAfter
	if o.UnreachableAfter > 0 {
		unreachableAfter = o.UnreachableAfter
	}
	if unreachableAfter <= 0 {
		unreachableAfter = scenarios.DefaultUnreachableAfter
	}
	var window time.Duration // a silence the scenario injects on purpose is not a dead target
	for _, f := range sc.Faults {
		window = max(window, f.For)
	}
	unreachableAfter += window
	stopWatch = target.WatchTarget(tgt, unreachableAfter, stopForTrouble, logf)

	id := cleanup.NewRunID()
	shardIndex, shardCount := 0, 1
	if o.Shard != nil {
		shardIndex, shardCount = o.Shard.Index, o.Shard.Count
		if o.Shard.RunID != "" {
			id = o.Shard.RunID
		}
	}
	sharded := shardCount > 1
	var active []*running // the workloads this shard runs load of
	for _, w := range sc.Workloads {
		f, ok := workload.Lookup(w.Kind)
		if !ok {
			return finish(fmt.Errorf("workload %s: kind %s is not implemented (implemented: %v)", w.Name, w.Kind, workload.Kinds()))
		}
		cut, err := cutWorkload(w, shardIndex, shardCount)
		if err != nil {
			return finish(err)
		}
		wl, err := f(cut.w, tgt)
		if errors.Is(err, target.ErrNoFileService) {
			// Only an account can run it: say so, run the others.
			sum.NotRun = append(sum.NotRun, fmt.Sprintf("workload %s: %v", w.Name, err))
			logf("workload %s: not run: %v", w.Name, err)
			continue
		}
		if err != nil {
			return finish(fmt.Errorf("workload %s: %w", w.Name, err))
		}
		env := workload.NewEnv(cut.w, sc, rec, tgt, id)
		env.ActorBase, env.KeyLo, env.KeyN, env.AttachOnly = cut.actorBase, cut.keyLo, cut.keyN, shardIndex > 0
		env.Zero, env.Sharded, env.StopStage = sum.Started.UnixNano(), sharded, stopStage.Context
		r := &running{plan: planFor(cut.w, sc), env: env, wl: wl, skip: cut.skip}
		runs = append(runs, r)
		if !r.skip {
			active = append(active, r)
		}
	}

	if len(runs) == 0 && len(sum.NotRun) > 0 {
		return finish(fmt.Errorf("no workload of the scenario can run on %s: %s", tgt.Desc, strings.Join(sum.NotRun, "; ")))
	}
	sum.RunID = id
	if sum.Shard != nil {
		sum.Shard.RunID = id // (generated when --run-id was not given)
	}
	startAt, owner, err := setUp(loadCtx, o, tgt, id, runs, logf)
	if owner {
		runID = id // the run has resources this process must clean
	}
	if err != nil && ctx.Err() != nil {
		// Ctrl-C during the setup. It was said as the target's failure:
		// "create k409 at ...: no answer (unknown): canceled; is the
		// target running, and is this its Blob endpoint?".
		err = errors.New("setup interrupted before it finished (Ctrl-C); the cleanup deletes what it created")
	}
	if err != nil {
		return finish(err)
	}
	if sum.Shard != nil {
		sum.Shard.Setup = shardIndex == 0
		o.Shard.startTogether(loadCtx, startAt, sum.Shard, logf)
	}
	if sharded {
		runID = "" // the last shard to finish cleans up
	}

	logf("load: %s", describeLoad(active))
	cpu0, cpuOK := processCPU()
	machine0 := sampleCPU(tgt.ProcessGroups())
	loadStart := time.Now()
	sum.LoadStart = loadStart.Sub(start)
	inj.begin(ctx, loadStart, tgt, logf)
	watchCtx, endWatch := context.WithCancel(loadCtx)
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		watchThresholds(watchCtx, sc.Thresholds, AbortCheckEvery, liveFigures(metrics), func(a *reports.ThresholdAbort) {
			logf("load stopping: %s", a)
			sum.AbortedBy = a
			stopLoad(errThresholdAbort)
		})
	}()
	endLoadGC := loadGC()
	load(loadCtx, active, rec, metrics, o)
	endLoadGC()
	endWatch()
	<-watched
	stopStage.End()
	o.stage(StageFinalReads)
	inj.End(logf)
	sum.Faults = inj.summary(sum.LoadStart)
	if cpu1, ok := processCPU(); ok && cpuOK {
		// The harness's share of the machine while the load ran: near 1,
		// the client (not the target) may be what limited the run.
		sum.ClientCPU = float64(cpu1-cpu0) / float64(time.Since(loadStart)) / float64(runtime.NumCPU())
	}
	if other, ok := otherShare(machine0, sampleCPU(tgt.ProcessGroups()), time.Since(loadStart)); ok {
		sum.OtherCPU = &other
	}
	last := true
	if sharded {
		last = shardFinished(o, tgt, trouble, sum, logf)
		if last {
			runID = id
		}
	}
	switch {
	case !last:
		logf("shard %d/%d: final reads and cleanup left to the last shard to finish", shardIndex, shardCount)
	case trouble.Err() != nil:
		logf("final reads skipped: %v", context.Cause(trouble))
	case o.Abort.Err() != nil:
		logf("final reads skipped (interrupted twice)")
	case inj.targetDown() != "":
		logf("final reads skipped: Azurite is down (fault %s stopped it and it was not restarted)", inj.targetDown())
	default:
		if ctx.Err() != nil {
			logf("load stopped: interrupted")
		}
		logf("final reads")
		st := stage.Begin("final reads", stage.FinalReadsBound, stage.Cut{Ctx: o.Abort, Why: stage.ErrInterruptedAgain}, stage.Cut{Ctx: trouble, Why: nil})
		waited := waiting(logf, "final reads", stage.FinalReadsBound)
		for _, r := range runs {
			if err := r.wl.Final(st.Ctx, r.env); err != nil {
				logf("final reads of %s: %v", r.env.Name, err)
			}
		}
		waited()
		if why := st.Why(); why != "" {
			logf("final reads cut short: %s", why)
		}
		st.Cancel()
		if sum.Shard != nil {
			sum.Shard.FinalReads = true
		}
	}
	return finish(nil)
}

// load runs every workload's executor side by side and reports progress.
func load(ctx context.Context, runs []*running, rec *workload.Recorder, m *reports.Metrics, o Options) {
	start := time.Now()
	var wg sync.WaitGroup
	var mu sync.Mutex
	for _, r := range runs {
		wg.Add(1)
		go func(r *running) {
			defer wg.Done()
			if r.plan.limit > 0 {
				t := time.AfterFunc(r.plan.limit, func() { r.env.Stop.Store(true) })
				defer t.Stop()
			}
			if r.plan.w.Executor == scenarios.ExecutorOpen {
				runOpen(ctx, r.env, r.wl, r.plan, &r.stats)
			} else {
				runClosed(ctx, r.env, r.wl, r.plan, &r.stats)
			}
			r.env.Stop.Store(true)
			mu.Lock()
			r.done = true
			mu.Unlock()
		}(r)
	}
	finished := make(chan struct{})
	go func() { wg.Wait(); close(finished) }()
	every := o.ProgressEvery
	if every <= 0 {
		every = time.Second
	}
	tick := time.NewTicker(every)
	defer tick.Stop()
	// end is when the load is due to stop; the tick nearest to it is left
	// out, as the final report follows it at once with the final counts
	// (otherwise the last line appears twice, a few calls apart).
	var end time.Duration
	for _, r := range runs {
		end = max(end, r.plan.limit)
	}
	nearEnd := func() bool {
		d := time.Since(start) - end
		return end > 0 && d > -every/2 && d < every/2
	}
	report := func() {
		if o.Progress == nil {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		o.Progress(snapshot(time.Since(start), runs, m))
	}
	for {
		select {
		case <-finished:
			report()
			return
		case <-tick.C:
			if !nearEnd() {
				report()
			}
		}
	}
}

func snapshot(elapsed time.Duration, runs []*running, m *reports.Metrics) Progress {
	live := map[string]reports.WorkloadProgress{}
	for _, p := range m.Progress() {
		live[p.Workload] = p
	}
	p := Progress{Elapsed: elapsed}
	for _, r := range runs {
		wp := live[r.env.Name]
		wp.Workload = r.env.Name
		p.Workloads = append(p.Workloads, WorkloadProgress{
			WorkloadProgress: wp, Limit: r.plan.limit, Bound: r.plan.w.Iterations,
			Iterations: r.stats.Iterations.Load(), Done: r.done,
		})
	}
	return p
}

func describeLoad(runs []*running) string {
	s := ""
	for i, r := range runs {
		if i > 0 {
			s += "; "
		}
		w := r.plan.w
		if w.Executor == scenarios.ExecutorOpen {
			s += fmt.Sprintf("%s (%s, open loop from %.0f/s, up to %d actors", w.Name, w.Kind, w.Rate, w.Actors)
		} else {
			s += fmt.Sprintf("%s (%s, %d actors", w.Name, w.Kind, w.Actors)
		}
		if r.plan.limit > 0 {
			s += fmt.Sprintf(", %s", r.plan.limit)
		}
		if w.Iterations > 0 {
			s += fmt.Sprintf(", at most %d iterations", w.Iterations)
		}
		s += ")"
	}
	return s
}
