package runner

import (
	"context"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"
	"github.com/stormcheck/stormcheck/runner/conform"
	"github.com/stormcheck/stormcheck/runner/target"
	"github.com/stormcheck/stormcheck/scenarios/conformance"
)

// recordingTransport answers every request with 204 and an ETag, keeping
// the requests.
type recordingTransport struct {
	mu   sync.Mutex
	reqs []*http.Request
}

func (r *recordingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	r.mu.Lock()
	r.reqs = append(r.reqs, req)
	r.mu.Unlock()
	return &http.Response{StatusCode: http.StatusNoContent, Status: "204 No Content", Request: req,
		Header: http.Header{"Etag": {`W/"datetime'2026-01-01T00%3A00%3A00Z'"`}}, Body: io.NopCloser(strings.NewReader(""))}, nil
}

// TestConformEntityIfMatchOnTheWire checks that the table steps send
// If-Match exactly as the rule writes it: Update and Merge Entity without
// if_match go out without the header (what the REST reference calls
// Insert Or Replace / Insert Or Merge), where the SDK's UpdateEntity would
// send If-Match: *; with if_match they carry that value.
func TestConformEntityIfMatchOnTheWire(t *testing.T) {
	rt := &recordingTransport{}
	svc, err := aztables.NewServiceClientWithNoCredential("http://127.0.0.1:1/devstoreaccount1", target.TableOptions(&http.Client{Transport: rt}))
	if err != nil {
		t.Fatal(err)
	}
	rr := &conform.RuleRun{T: &target.Target{Table: svc}, Prefix: "sc1-r0", Vars: map[string]string{"e1": `W/"e1"`}, LastETag: map[string]string{}}
	star := &conformance.Value{Literal: "*"}
	for _, tc := range []struct {
		st      conformance.Step
		method  string
		ifMatch []string // nil: no If-Match header
	}{
		{conformance.Step{Op: "table.update", Row: "r1"}, http.MethodPut, nil},
		{conformance.Step{Op: "table.merge", Row: "r1"}, http.MethodPatch, nil},
		{conformance.Step{Op: "table.update", Row: "r1", IfMatch: star}, http.MethodPut, []string{"*"}},
		{conformance.Step{Op: "table.merge", Row: "r1", IfMatch: &conformance.Value{Ref: "e1"}}, http.MethodPatch, []string{`W/"e1"`}},
		{conformance.Step{Op: "table.upsert", Row: "r1"}, http.MethodPut, nil},
		{conformance.Step{Op: "table.upsert-merge", Row: "r1"}, http.MethodPatch, nil},
		{conformance.Step{Op: "table.delete", Row: "r1", IfMatch: star}, http.MethodDelete, []string{"*"}},
	} {
		rt.reqs = nil
		obs, _, _ := rr.Do(context.Background(), &tc.st)
		if obs.Status != http.StatusNoContent || len(rt.reqs) != 1 {
			t.Fatalf("%s: status %d, %d requests (%s)", tc.st.Op, obs.Status, len(rt.reqs), obs.Err)
		}
		req := rt.reqs[0]
		if got := req.Header.Values("If-Match"); req.Method != tc.method || strings.Join(got, ",") != strings.Join(tc.ifMatch, ",") {
			t.Errorf("%s (if_match %v): sent %s with If-Match %q, want %s with %q", tc.st.Op, tc.st.IfMatch, req.Method, got, tc.method, tc.ifMatch)
		}
		if !strings.Contains(req.URL.Path, "sc1r0(PartitionKey='p',RowKey='r1')") {
			t.Errorf("%s: path %s, want the rule's table and the default partition", tc.st.Op, req.URL.Path)
		}
	}
}
