package scenarios

import (
	"sort"
	"time"
)

// Defaults applied to fields a scenario file leaves out.
const (
	defaultSeed                = 1
	defaultTimeout             = 10 * time.Second
	defaultRetryMaxAttempts    = 4
	defaultRetryBase           = 200 * time.Millisecond
	defaultRetryMax            = 5 * time.Second
	defaultConnectionStringEnv = "AZURE_STORAGE_CONNECTION_STRING"
	defaultKeyEnv              = "AZURE_STORAGE_KEY"
	defaultOpenActors          = 64
	defaultLease               = 15 * time.Second
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
