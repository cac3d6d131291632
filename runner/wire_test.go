package runner

import (
	"net/http"
	"reflect"
	"testing"

	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/runner/workload"
)

func TestSentInputRecordsTheWire(t *testing.T) {
	req := func(kv ...string) *http.Response {
		h := http.Header{}
		for i := 0; i < len(kv); i += 2 {
			h[kv[i]] = []string{kv[i+1]} // as the SDK does: keys as written, x-ms-* in lower case
		}
		return &http.Response{Request: &http.Request{Header: h}}
	}
	intended := checks.Input{IfUnmodifiedSince: "Sun, 22 Nov 2026 05:00:00 GMT", IfModifiedSince: "x", Value: "v", LeaseID: "L"}
	// The SDK dropped If-Unmodified-Since and the lease id: record what was sent.
	got := workload.SentInput(intended, req("If-Modified-Since", "x"), nil)
	if got.IfUnmodifiedSince != "" || got.IfModifiedSince != "x" || got.LeaseID != "" || got.Value != "v" {
		t.Errorf("got %+v", got)
	}
	got = workload.SentInput(checks.Input{LeaseID: "P", LeaseDuration: 15}, req("x-ms-lease-action", "acquire", "x-ms-proposed-lease-id", "P"), nil)
	if got.LeaseID != "P" || got.LeaseDuration != 15 {
		t.Errorf("acquire: %+v", got)
	}
	got = workload.SentInput(checks.Input{}, req("x-ms-lease-action", "change", "x-ms-lease-id", "A", "x-ms-proposed-lease-id", "B"), nil)
	if got.LeaseID != "A" || got.ProposedLeaseID != "B" {
		t.Errorf("change: %+v", got)
	}
	// Headers injected by injectHeaders are canonical; either spelling is read.
	got = workload.SentInput(checks.Input{}, req("X-Ms-Lease-Id", "C", "if-match", `"e"`), nil)
	if got.LeaseID != "C" || got.IfMatch != `"e"` {
		t.Errorf("canonical x-ms, lower-case standard: %+v", got)
	}
	if got := workload.SentInput(intended, nil, nil); !reflect.DeepEqual(got, intended) {
		t.Errorf("without a response the intended input stays: %+v", got)
	}
}
