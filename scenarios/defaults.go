package scenarios

import (
	"sort"
	"time"
)

// Defaults applied to fields a scenario file leaves out.
const (
	defaultSeed    = 1
	defaultTimeout = 10 * time.Second
	// DefaultUnreachableAfter: three default timeouts without any answer.
	DefaultUnreachableAfter    = 30 * time.Second
	defaultRetryMaxAttempts    = 4
	defaultRetryBase           = 200 * time.Millisecond
	defaultRetryMax            = 5 * time.Second
	defaultConnectionStringEnv = "AZURE_STORAGE_CONNECTION_STRING"
	defaultKeyEnv              = "AZURE_STORAGE_KEY"
	defaultOpenActors          = 64
	defaultLease               = 15 * time.Second
	// DefaultDuration is the load phase of a workload the file gives no
	// bound (no duration, stages or iterations, no top-level duration).
	DefaultDuration = 30 * time.Second
	// DefaultClockOffsetBound is the clock offset bound of a scenario that
	// states none: what NTP keeps a cluster's clocks within, with margin.
	DefaultClockOffsetBound = 100 * time.Millisecond
	// maxClockOffsetBound bounds clock_offset_bound.
	maxClockOffsetBound = time.Minute
)

// defaultRetryOn is the outcomes retried by default: 503/500 and timeouts,
// never a 4xx.
var defaultRetryOn = []string{"throttled", "unknown"}

// applyDefaults fills every field a valid scenario left out. Validation
// refuses explicit zeros where zero is not allowed, so a zero here means
// "absent"; the seed, where 0 is a valid choice, says so with seedSet.
func applyDefaults(s *Scenario, seedSet bool) {
	if !seedSet {
		s.Seed = defaultSeed
	}
	if s.Timeout == 0 {
		s.Timeout = defaultTimeout
	}
	if s.UnreachableAfter == 0 {
		s.UnreachableAfter = DefaultUnreachableAfter
	}
	if !s.clockOffsetBoundSet {
		s.ClockOffsetBound = DefaultClockOffsetBound
	}
	targetDefaults(&s.Target)
	r := &s.Retry
	if r.MaxAttempts == 0 {
		r.MaxAttempts = defaultRetryMaxAttempts
	}
	if r.Base == 0 {
		r.Base = defaultRetryBase
	}
	if r.Max == 0 {
		r.Max = max(defaultRetryMax, r.Base)
	}
	if r.On == nil {
		r.On = append([]string(nil), defaultRetryOn...)
	}
	for i := range s.Workloads {
		workloadDefaults(&s.Workloads[i])
	}
	if s.Checks == nil {
		s.Checks = defaultChecks(s)
	}
	capacityDefaults(&s.Capacity)
	if !s.Compare.ToleranceSet {
		s.Compare.Tolerance = 0.1
	}
}

// targetDefaults fills the target; endpoints default to the account's
// public Azure endpoints.
func targetDefaults(t *Target) {
	if t.Kind == "" {
		t.Kind = TargetAzurite
	}
	switch t.Kind {
	case TargetAzurite:
		if t.AzuriteVersion == "" {
			t.AzuriteVersion = DefaultAzuriteVersion
		}
	case TargetConnectionString:
		if t.ConnectionStringEnv == "" {
			t.ConnectionStringEnv = defaultConnectionStringEnv
		}
	case TargetAccountKey, TargetEntraID:
		if t.Kind == TargetAccountKey && t.KeyEnv == "" {
			t.KeyEnv = defaultKeyEnv
		}
		for svc, u := range map[string]*string{"blob": &t.BlobURL, "queue": &t.QueueURL, "table": &t.TableURL} {
			if *u == "" {
				*u = "https://" + t.Account + "." + svc + ".core.windows.net"
			}
		}
	}
}

// workloadDefaults fills a workload, including its kind's params.
func workloadDefaults(w *Workload) {
	if w.Executor == "" {
		w.Executor = ExecutorClosed
	}
	if w.ShardKeys == "" {
		w.ShardKeys = ShardKeysDivided
	}
	if w.Actors == 0 {
		w.Actors = 1
		if w.Executor == ExecutorOpen {
			w.Actors = defaultOpenActors
		}
	}
	if w.Keys == 0 {
		w.Keys = 1
	}
	if contains(Kinds[w.Kind].Params, "lease_duration") && w.Params.LeaseDuration == 0 {
		w.Params.LeaseDuration = defaultLease
	}
	if contains(Kinds[w.Kind].Params, "read_fraction") && w.Params.ReadFraction == 0 {
		w.Params.ReadFraction = 0.5
	}
	if contains(Kinds[w.Kind].Params, "blocks") && w.Params.Blocks == 0 {
		w.Params.Blocks = 4
	}
	p, accepts := &w.Params, func(name string) bool { return contains(Kinds[w.Kind].Params, name) }
	setInt := func(name string, v *int, def int) {
		if accepts(name) && *v == 0 {
			*v = def
		}
	}
	setInt("props", &p.Props, 6)
	setInt("batch_size", &p.BatchSize, 10)
	setInt("messages_per_get", &p.MessagesPerGet, 8)
	if accepts("rows") && p.Rows == 0 {
		p.Rows = 100
		if w.Kind == "table.batch" {
			p.Rows = max(20, p.BatchSize)
		}
	}
	if accepts("force_fraction") && p.ForceFraction == 0 {
		p.ForceFraction = 0.5
	}
	if accepts("replace_fraction") && p.ReplaceFraction == 0 {
		p.ReplaceFraction = 0.3
	}
	if accepts("acquire_retry") && p.AcquireRetry == "" {
		p.AcquireRetry = AcquireBackoff
	}
	if accepts("key_pattern") && p.KeyPattern == "" {
		p.KeyPattern = KeyUniform
	}
	if accepts("zipf_s") && p.ZipfS == 0 {
		p.ZipfS = 1.1
	}
	if accepts("visibility") && p.Visibility == 0 {
		p.Visibility = 2 * time.Second
	}
	if accepts("producers") && p.Producers == 0 {
		p.Producers = max(1, w.Actors/2)
	}
}

// paramDefaults are the defaults of params where 0 is a valid choice (a
// fraction that may be switched off): the decoder starts from them before
// reading the file, so an explicit 0 stays 0.
func paramDefaults(kind string) Params {
	var p Params
	accepts := func(name string) bool { return contains(Kinds[kind].Params, name) }
	if accepts("merge_fraction") {
		p.MergeFraction = 0.5
	}
	if accepts("fail_fraction") {
		p.FailFraction = 0.1
	}
	if accepts("projection") {
		p.Projection = 0.5
	}
	if accepts("update_fraction") {
		p.UpdateFraction = 0.2
	}
	if accepts("crash_fraction") {
		p.CrashFraction = 0.05
	}
	if accepts("release_fraction") {
		p.ReleaseFraction = 0.05
	}
	return p
}

// defaultChecks is every check that applies to the workloads' kinds,
// sorted and distinct.
func defaultChecks(s *Scenario) []string {
	checks := []string{}
	for _, w := range s.Workloads {
		for _, c := range Kinds[w.Kind].Checks {
			if !contains(checks, c) {
				checks = append(checks, c)
			}
		}
	}
	sort.Strings(checks)
	return checks
}
