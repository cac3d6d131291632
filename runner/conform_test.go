package runner

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/scenarios"
	"github.com/stormcheck/stormcheck/scenarios/conformance"
)

// wrongRule expects Lease Blob to change the ETag and a write without the
// lease id to succeed on a leased blob: both wrong, so the runner must
// report the rule as diverging, with expected and actual.
const wrongRule = `
rules:
  - id: test.wrong
    title: a rule whose expectation is wrong
    source: test
    tags: [blob, lease]
    steps:
      - op: blob.put
        blob: b
        body: "v1"
        capture: {etag: e1}
        expect: {status: 201}
      - op: blob.lease.acquire
        blob: b
        duration: 15
        expect: {status: 201, etag: {differs: $e1}}
      - op: blob.put
        blob: b
        body: "v2"
        expect: {status: 201}
`

func TestConformanceAgainstAzurite(t *testing.T) {
	ctx := context.Background()
	tgt, err := OpenTarget(ctx, scenarios.Target{Kind: scenarios.TargetAzurite, AzuriteVersion: scenarios.DefaultAzuriteVersion},
		TargetOptions{WorkDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer tgt.Close()
	rs, err := conformance.LoadDir(filepath.Join("..", "scenarios", "conformance"))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range Conformance(ctx, tgt, rs.Select(nil), 4) {
		if r.Status != checks.ConformPass {
			t.Errorf("%s on Azurite: %s %s %+v", r.ID, r.Status, r.Error, r.Divergence())
		}
	}
	wrong, err := conformance.Parse("wrong.yaml", []byte(wrongRule))
	if err != nil {
		t.Fatal(err)
	}
	res := Conformance(ctx, tgt, wrong, 1)[0]
	if res.Status != checks.ConformDiverges || len(res.Steps) != 3 || res.Steps[1].Pass || res.Steps[2].Pass {
		t.Fatalf("a wrong rule must diverge at steps 2 and 3: %+v", res)
	}
	if d := res.Divergence(); d == nil || !strings.Contains(d.Actual, "201") || !strings.Contains(res.Steps[2].Actual, "412 LeaseIdMissing") {
		t.Errorf("divergences do not show the service's answers: %+v", res.Steps)
	}
}
