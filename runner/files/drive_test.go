package files_test

import (
	"context"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/runner/samba"
	"github.com/stormcheck/stormcheck/runner/target"
	"github.com/stormcheck/stormcheck/runner/workload"
	"github.com/stormcheck/stormcheck/scenarios"
)

// driveExample runs an example scenario's first workload against the SMB
// server at addr (inst's share and user) for iters iterations per actor (no
// clock decides what is checked) and returns the named check of its
// history. actors > 0 replaces the example's actor count.
func driveExample(t *testing.T, example string, inst *samba.Instance, addr string, actors, iters int, check string) checks.Result {
	t.Helper()
	sc, err := scenarios.Load(filepath.Join("../../scenarios/examples", example))
	if err != nil {
		t.Fatal(err)
	}
	w := sc.Workloads[0]
	if actors > 0 {
		w.Actors = actors
	}
	tgt := &target.Target{Desc: "samba via " + addr, Samba: &samba.Instance{Addr: addr, Share: inst.Share, User: inst.User, Password: inst.Password,
		RequireSigning: inst.RequireSigning, RequireEncryption: inst.RequireEncryption}}
	path := filepath.Join(t.TempDir(), "history.jsonl.zst")
	rec, err := workload.NewRecorder(path, time.Now(), nil)
	if err != nil {
		t.Fatal(err)
	}
	e := workload.NewEnv(w, sc, rec, tgt, "d"+time.Now().Format("150405.000000"))
	f, _ := workload.Lookup(w.Kind)
	wl, err := f(w, tgt)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := wl.Setup(ctx, e); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := range w.Actors {
		a := e.Actor(i)
		wg.Go(func() {
			for range iters {
				wl.Iterate(ctx, a)
			}
		})
	}
	wg.Wait()
	e.Stop.Store(true)
	if err := wl.Final(ctx, e); err != nil {
		t.Fatal(err)
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	c, err := checks.New(check)
	if err != nil {
		t.Fatal(err)
	}
	if ta, ok := c.(checks.TargetAware); ok {
		ta.SetTarget(sc.Target.Kind) // as the runner does: the examples' target is samba
	}
	if err := checks.ReadHistoryFile(path, func(op *checks.Op) error { c.Observe(op); return nil }); err != nil {
		t.Fatal(err)
	}
	return c.Finish()
}
