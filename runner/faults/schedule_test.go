package faults

import (
	"testing"
	"time"

	"github.com/stormcheck/stormcheck/scenarios"
)

// Windows count from Begin on the schedule's clock; scope and fraction
// decide which requests a fault takes; End lifts everything.
func TestSchedulePicks(t *testing.T) {
	now := time.Unix(1000, 0)
	clock := func() time.Time { return now }
	fs := []scenarios.Fault{
		{Name: "a", Kind: "http.timeout", At: 10 * time.Second, For: 5 * time.Second, Ops: []string{"blob.put"}, Keys: []string{"k1*"}, Fraction: 1},
		{Name: "b", Kind: "http.server-busy", Services: []string{"table"}, Fraction: 0.25},
		{Name: "n", Kind: "net.latency", Latency: time.Second, Fraction: 1}, // no HTTP stage
	}
	s := NewSchedule(fs, 7, clock)
	put := Request{"blob", "blob.put", "k12"}
	if s.pick(put) != -1 {
		t.Fatal("picked before the load began")
	}
	s.Begin(now)
	now = now.Add(9 * time.Second)
	if s.pick(put) != -1 {
		t.Fatal("picked before the window")
	}
	now = now.Add(time.Second)
	if s.pick(put) != 0 {
		t.Fatal("not picked in the window")
	}
	if s.pick(Request{"blob", "blob.put", "k2"}) != -1 || s.pick(Request{"blob", "blob.get", "k1"}) != -1 {
		t.Fatal("picked out of scope")
	}
	n, hits := 4000, 0
	for i := 0; i < n; i++ {
		if s.pick(Request{"table", "table.get", "p"}) == 1 {
			hits++
		}
	}
	if hits < n/5 || hits > n*3/10 {
		t.Fatalf("fraction 0.25 took %d of %d", hits, n)
	}
	s.End()
	if s.pick(put) != -1 {
		t.Fatal("picked after End")
	}
}
