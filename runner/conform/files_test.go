package conform

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stormcheck/stormcheck/conformance/verdict"
	"github.com/stormcheck/stormcheck/runner/azurite"
	"github.com/stormcheck/stormcheck/runner/connstr"
	"github.com/stormcheck/stormcheck/runner/files/replaytest"
	"github.com/stormcheck/stormcheck/runner/target"
	"github.com/stormcheck/stormcheck/scenarios/conformance"
)

// TestFileRulesNeedAnAccount: the shipped File REST rules are left out on
// a target without a file endpoint (a managed Azurite), with one line that
// names them and says why; the other rules run. They do not make a
// connection string without a file endpoint unusable.
func TestFileRulesNeedAnAccount(t *testing.T) {
	rs, err := conformance.Shipped()
	if err != nil {
		t.Fatal(err)
	}
	all := rs.Select(nil)
	files := rs.Select([]string{"file"})
	if len(files) < 5 {
		t.Fatalf("%d shipped file rules", len(files))
	}
	run, notRun := Split(&target.Target{Azurite: &azurite.Instance{}}, all)
	if len(notRun) != len(files) || len(run) != len(all)-len(files) {
		t.Fatalf("%d run, %d not run; %d rules, %d file rules", len(run), len(notRun), len(all), len(files))
	}
	for _, r := range run {
		if target.RuleServices(&r).Has(connstr.File) {
			t.Errorf("file rule %s would run on Azurite", r.ID)
		}
	}
	line := NotRunLine(notRun, true)
	if !strings.HasPrefix(line, fmt.Sprintf("%d rule(s) need an account and were not run: Azurite has no File service", len(files))) || !strings.Contains(line, "file.lease.write-needs-id") {
		t.Errorf("line: %s", line)
	}
	if short := NotRunLine(notRun, false); !strings.HasPrefix(short, fmt.Sprintf("%d rule(s) need an account and were not run (-v names them): Azurite has no File service", len(files))) || strings.Contains(short, "file.lease.write-needs-id") {
		t.Errorf("the default screen's line: %s", short)
	}
	if ConformServices(all).Has(connstr.File) {
		t.Error("the file rules make the file endpoint required")
	}
}

// TestFileRulesReplay runs two shipped file rules through the conformance
// executor and the real azfile client against answers recorded live from
// Azure Files (the JavaScript SDK's recordings, see replaytest). It proves
// only that each step sends what the recordings' requests sent (lease
// action and ids as the rule writes them, none where the rule gives none)
// and that the recorded answers are judged as the rules expect; how Azure
// Files answers today only a run against an account shows.
func TestFileRulesReplay(t *testing.T) {
	rs, err := conformance.Shipped()
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]conformance.Rule{}
	for _, r := range rs.Select([]string{"file"}) {
		byID[r.ID] = r
	}
	noLease := map[string]string{"x-ms-write": "update", "x-ms-lease-id": ""}
	withLease := map[string]string{"x-ms-write": "update", "x-ms-lease-id": "$proposed"}
	for id, xs := range map[string][]replaytest.Exchange{
		"file.lease.write-needs-id": {replaytest.ShareCreated, replaytest.FileCreated, replaytest.Acquired,
			replaytest.PutNoLease.With(noLease), replaytest.PutLeased.With(withLease), replaytest.Released,
			replaytest.PutLeased.With(noLease), replaytest.ShareDeleted},
		"file.lease.acquire-and-conflict": {replaytest.ShareCreated, replaytest.FileCreated, replaytest.Acquired,
			replaytest.AcquireRefused, replaytest.Released, replaytest.Acquired, replaytest.Released, replaytest.ShareDeleted},
		"file.lease.read-wrong-id": {replaytest.ShareCreated, replaytest.FileCreated, replaytest.Acquired,
			replaytest.ReadWrongLease, replaytest.FileRead.With(map[string]string{"x-ms-lease-id": ""}), replaytest.Released, replaytest.ShareDeleted},
	} {
		r, ok := byID[id]
		if !ok {
			t.Fatalf("no shipped rule %s", id)
		}
		tg, rp := replaytest.Target(t, xs...)
		ctx := context.Background()
		res := Run(ctx, ctx, tg, []conformance.Rule{r}, 1)
		if len(res) != 1 || res[0].Status != verdict.ConformPass {
			t.Errorf("%s on the recorded answers: %+v", id, res)
		}
		if rp.Left() != 0 {
			t.Errorf("%s: %d recorded exchanges not requested", id, rp.Left())
		}
	}
}
