package faults

import (
	"testing"
	"time"

	"github.com/stormcheck/stormcheck/scenarios"
)

// reorder holds the first request back so a later one reaches the service
// first. The order is what the upstream saw, not a duration measured.
func TestReorderLetsALaterRequestOvertake(t *testing.T) {
	up := newUpstream(t)
	s := oneFault("http.reorder", func(f *scenarios.Fault) { f.Hold = time.Hour; f.Keys = []string{"held"} })
	base := chain(t, s, "blob", up)
	done := make(chan error, 1)
	go func() {
		_, _, err := put(t, base, "/devstoreaccount1/c/held", "first")
		done <- err
	}()
	// Wait until the first request is held (it is noted only once
	// forwarded, so poll the schedule's pending count instead).
	for s.Held() == 0 {
		time.Sleep(time.Millisecond)
	}
	if _, _, err := put(t, base, "/devstoreaccount1/c/k1", "second"); err != nil {
		t.Fatal(err)
	}
	got := up.requests()
	if len(got) != 1 || got[0] != "PUT /devstoreaccount1/c/k1 second" {
		t.Fatalf("upstream got %v, want only the later request so far", got)
	}
	s.End() // lifting the fault releases what it holds
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got := up.requests(); len(got) != 2 || got[1] != "PUT /devstoreaccount1/c/held first" {
		t.Fatalf("upstream got %v", got)
	}
}
