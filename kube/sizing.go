package kube

import (
	"fmt"
	"math"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/stormcheck/stormcheck/scenarios"
)

// The figures the resource rule rests on.
const (
	// CPUPerCall is the client CPU one call costs: the README's "three
	// clients side by side" benchmark measured 84.5–90.5 µs per call for
	// stormcheck's actor path (SDK call, classification, history, HDR),
	// rounded up.
	CPUPerCall = 100 * time.Microsecond
	// ClosedCallsPerActor is the most calls per second one closed-loop
	// actor is assumed to make: one call per 10 ms, about the round trip of
	// a small blob or entity call within an Azure region.
	ClosedCallsPerActor = 100
	// BaseCPUMilli is what a shard uses beside its calls: the recorder's
	// compression flushes, the per-second hlog intervals, progress, GC.
	BaseCPUMilli = 100
	// MinCPUMilli is the least CPU a shard requests.
	MinCPUMilli = 250
	// BaseMemoryMiB is what a single-shard run holds whatever its load: it
	// checks its own history at the end, and the checks peaked at 232–305
	// MiB RSS over 1M to 10M recorded operations (README, "Checking a
	// history of any length in bounded memory"), plus the live histograms.
	BaseMemoryMiB = 320
	// ShardBaseMemoryMiB is the same for a shard of N > 1, which leaves the
	// checks to the merge: shards of 3 to 20 actors peaked at 49–71 MiB RSS
	// (TestKubeManifestsRunAsShards logs it and holds every shard under
	// its limit).
	ShardBaseMemoryMiB = 128
	// ActorMemoryKiB is one actor's own memory: its goroutine, its HTTP
	// connection's buffers, its cached clients and values.
	ActorMemoryKiB = 256
)

// Sizing is the resources one shard asks for, and why.
type Sizing struct {
	// CPU and Memory are the requests; Memory is also the limit.
	CPU, Memory resource.Quantity
	// CallsPerSecond is the busiest shard's estimated calls per second.
	CallsPerSecond float64
	// BaseMiB is the memory counted whatever the load.
	BaseMiB int
	// Workloads says, per workload, the busiest shard's share.
	Workloads []string
}

// Explain says in one line how the sizing was reached.
func (s Sizing) Explain() string {
	return fmt.Sprintf("busiest shard: %s; ~%.0f calls/s × %v + %dm → cpu %s; %d MiB + %d KiB per actor + the payloads it holds → memory %s",
		strings.Join(s.Workloads, ", "), s.CallsPerSecond, CPUPerCall, BaseCPUMilli, s.CPU.String(), s.BaseMiB, ActorMemoryKiB, s.Memory.String())
}

// peakActors is the most actors a workload runs at once: its actors, or
// its highest stage target for a closed loop.
func peakActors(w scenarios.Workload) int {
	a := w.Actors
	if w.Executor != scenarios.ExecutorOpen {
		for _, s := range w.Stages {
			a = max(a, int(math.Ceil(s.Target)))
		}
	}
	return a
}

// peakRate is an open loop's highest arrival rate (0 for a closed loop).
func peakRate(w scenarios.Workload) float64 {
	if w.Executor != scenarios.ExecutorOpen {
		return 0
	}
	r := w.Rate
	for _, s := range w.Stages {
		r = max(r, s.Target)
	}
	return r
}

// heldValues is how many written or read values of payload_bytes one actor
// of the workload holds at once: the value it builds, the request body, the
// response it reads; a table batch holds its whole batch, a queue consumer
// a whole Get Messages.
func heldValues(w scenarios.Workload) int {
	return 3 + max(w.Params.BatchSize, w.Params.MessagesPerGet)
}

// Size applies the rule to the busiest shard (shard 0) of n:
//
//	calls/s  = Σ closed workloads: ceil(peak actors / n) × ClosedCallsPerActor
//	         + Σ open workloads:   peak rate × ceil(actors / n) / actors
//	CPU      = max(MinCPUMilli, BaseCPUMilli + calls/s × CPUPerCall), rounded up to 50m
//	memory   = base + Σ shard actors × (ActorMemoryKiB + held values × payload_bytes), rounded up to 1 MiB,
//	           base = ShardBaseMemoryMiB, or BaseMemoryMiB for a single shard (it runs the checks)
func Size(sc *scenarios.Scenario, n int) Sizing {
	var s Sizing
	var memKiB float64
	for _, w := range sc.Workloads {
		peak := peakActors(w)
		a := scenarios.ShardPart(peak, n, 0)
		if a == 0 {
			continue
		}
		var calls float64
		if r := peakRate(w); r > 0 {
			calls = r * float64(scenarios.ShardPart(w.Actors, n, 0)) / float64(w.Actors)
			s.Workloads = append(s.Workloads, fmt.Sprintf("%s %d actors at %.4g/s", w.Name, a, calls))
		} else {
			calls = float64(a * ClosedCallsPerActor)
			s.Workloads = append(s.Workloads, fmt.Sprintf("%s %d actors", w.Name, a))
		}
		s.CallsPerSecond += calls
		memKiB += float64(a) * (ActorMemoryKiB + float64(heldValues(w)*w.Params.PayloadBytes)/1024)
	}
	milli := BaseCPUMilli + s.CallsPerSecond*float64(CPUPerCall)/float64(time.Millisecond)
	milli = max(MinCPUMilli, math.Ceil(milli/50)*50)
	s.CPU = *resource.NewMilliQuantity(int64(milli), resource.DecimalSI)
	s.BaseMiB = ShardBaseMemoryMiB
	if n == 1 {
		s.BaseMiB = BaseMemoryMiB
	}
	mib := float64(s.BaseMiB) + math.Ceil(memKiB/1024)
	s.Memory = *resource.NewQuantity(int64(mib)<<20, resource.BinarySI)
	return s
}

// LoadPhase is the longest load phase of the scenario's workloads, and
// false when a workload is bounded by its iterations alone (no time known).
func LoadPhase(sc *scenarios.Scenario) (time.Duration, bool) {
	var longest time.Duration
	for _, w := range sc.Workloads {
		d := w.Duration
		if d == 0 {
			d = sc.Duration
		}
		if len(w.Stages) > 0 {
			d = 0
			for _, st := range w.Stages {
				d += st.Duration
			}
		}
		if d == 0 {
			return 0, false
		}
		longest = max(longest, d)
	}
	return longest, true
}
