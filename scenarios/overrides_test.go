package scenarios

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func writeScenario(t *testing.T, src string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "s.yaml")
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

const overrideScenario = `name: ov
duration: 10s
workloads:
  - name: counter
    kind: blob.etag-counter
    actors: 8
  - name: ramp
    kind: blob.lww
    actors: 2
    stages: [{duration: 2s, target: 6}, {duration: 6s, target: 6}]
  - name: paced
    kind: blob.lww
    executor: open
    rate: 50
    stages: [{duration: 1s, target: 100}, {duration: 3s, target: 100}]
`

func TestOverridesEveryWorkloadAndStages(t *testing.T) {
	path := writeScenario(t, overrideScenario)
	sc, notes, err := LoadWithOverrides(path, Overrides{Actors: 4, Rate: 100, Duration: 4 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	w := map[string]Workload{}
	for _, x := range sc.Workloads {
		w[x.Name] = x
	}
	if sc.Duration != 4*time.Second || w["counter"].Actors != 4 || w["ramp"].Actors != 4 || w["paced"].Actors != 4 {
		t.Errorf("duration %v, actors %d %d %d", sc.Duration, w["counter"].Actors, w["ramp"].Actors, w["paced"].Actors)
	}
	// Closed stages: 2s+6s scaled to 4s (1s+3s); targets 6 actors x 4/2.
	if st := w["ramp"].Stages; len(st) != 2 || st[0].Duration != time.Second || st[1].Duration != 3*time.Second || st[0].Target != 12 || st[1].Target != 12 {
		t.Errorf("ramp stages %+v", st)
	}
	// Open stages: 1s+3s already 4s; rate 50 -> 100 doubles the targets.
	if p := w["paced"]; p.Rate != 100 || p.Stages[0].Target != 200 || p.Stages[1].Duration != 3*time.Second {
		t.Errorf("paced %v %+v", p.Rate, p.Stages)
	}
	all := strings.Join(notes, "\n")
	for _, want := range []string{"workload ramp: its 2 stages scaled by 0.5", "to last 4s in all, not 8s", "workload ramp: its 2 stage targets (actor counts) scaled by 2", "workload paced: its 2 stage targets (rates) scaled by 2"} {
		if !strings.Contains(all, want) {
			t.Errorf("notes lack %q:\n%s", want, all)
		}
	}
	// The scenario kept with the results is what ran, and says how.
	if !strings.Contains(string(sc.Source), "run with --duration 4s --actors 4 --rate 100") {
		t.Errorf("source:\n%s", sc.Source)
	}
	back, err := Parse("back.yaml", sc.Source)
	if err != nil || back.Duration != 4*time.Second || back.Workloads[1].Stages[0].Target != 12 {
		t.Errorf("the kept source does not load back the same: %v", err)
	}
}

func TestSetOverridesAreValidatedByTheLoader(t *testing.T) {
	path := writeScenario(t, overrideScenario)
	sc, _, err := LoadWithOverrides(path, Overrides{Set: []string{"counter.payload_bytes=1024", "*.keys=3", "counter.conditional_reads=0.25"}})
	if err != nil {
		t.Fatal(err)
	}
	if c := sc.Workloads[0]; c.Params.PayloadBytes != 1024 || c.Keys != 3 || c.Params.ConditionalReads != 0.25 || sc.Workloads[2].Keys != 3 {
		t.Errorf("counter %+v", c)
	}
	sc, _, err = LoadWithOverrides(path, Overrides{Set: []string{"counter.shard_keys=shared"}})
	if err != nil || sc.Workloads[0].ShardKeys != ShardKeysShared || sc.Workloads[1].ShardKeys != ShardKeysDivided {
		t.Errorf("--set counter.shard_keys=shared: %v", err)
	}
	for set, want := range map[string]string{
		"counter.payload_bytes=abc":   `--set counter.payload_bytes=abc: workloads[0].params.payload_bytes: must be a whole number ≥ 0 and ≤ 4194304, got "abc"`,
		"counter.lease_duration=15s":  "--set counter.lease_duration=15s: workloads[0].params.lease_duration: kind blob.etag-counter has no param \"lease_duration\"",
		"countr.payload_bytes=1":      `--set countr.payload_bytes=1: no workload named "countr" (did you mean "counter"?); the scenario's workloads are counter, ramp, paced (or * for all)`,
		"counter.actors=0":            "--set counter.actors=0: workloads[0].actors: must be",
		"counter.rate=5":              "--set counter.rate=5: workloads[0].rate:",
		"payload_bytes=1":             "--set payload_bytes=1: want WORKLOAD.FIELD=VALUE",
		"counter.conditional_reads=2": "--set counter.conditional_reads=2: workloads[0].params.conditional_reads: must be a fraction from 0 to 1, got 2",
		"counter.shard_keys=split":    `--set counter.shard_keys=split: workloads[0].shard_keys: must be divided (each shard of a sharded run owns a disjoint part of the keys) or shared`,
	} {
		_, _, err := LoadWithOverrides(path, Overrides{Set: []string{set}})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("--set %s: %v\nwant %q", set, err, want)
		}
	}
	closed := writeScenario(t, "name: c\nduration: 1s\nworkloads:\n  - {name: counter, kind: blob.etag-counter}\n")
	if _, _, err := LoadWithOverrides(closed, Overrides{Rate: 10}); err == nil || !strings.Contains(err.Error(), "--rate 10: no workload has executor: open") {
		t.Errorf("--rate on closed loops: %v", err)
	}
	if _, _, err := LoadWithOverrides(closed, Overrides{Actors: 100000}); err == nil || !strings.Contains(err.Error(), "--actors 100000: workloads[0].actors: must be") {
		t.Errorf("--actors too many: %v", err)
	}
}
