package runner

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"syscall"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/runner/blob"
	"github.com/stormcheck/stormcheck/runner/workload"
)

func respErr(status int, code string) error {
	h := http.Header{}
	h.Set("x-ms-error-code", code)
	h.Set("x-ms-request-id", "req-1")
	return &azcore.ResponseError{StatusCode: status, ErrorCode: code, RawResponse: &http.Response{StatusCode: status, Header: h}}
}

func TestClassify(t *testing.T) {
	cases := []struct {
		name      string
		err       error
		conflicts []workload.Expect
		want      checks.Outcome
	}{
		{"success", nil, nil, checks.OK},
		{"stale if-match", respErr(412, "ConditionNotMet"), blob.ConflictPrecondition, checks.Conflict},
		{"412 not expected", respErr(412, "ConditionNotMet"), nil, checks.Error},
		{"blob exists", respErr(409, "BlobAlreadyExists"), blob.ConflictExists, checks.Conflict},
		{"other 409 is not the documented loss", respErr(409, "LeaseAlreadyPresent"), blob.ConflictExists, checks.Error},
		{"server busy", respErr(503, "ServerBusy"), nil, checks.Throttled},
		{"operation timed out", respErr(500, "OperationTimedOut"), nil, checks.Throttled},
		{"internal error may have applied", respErr(500, "InternalError"), nil, checks.Unknown},
		{"bad request", respErr(400, "InvalidHeaderValue"), nil, checks.Error},
		{"attempt timeout", fmt.Errorf("wrapped: %w", context.DeadlineExceeded), nil, checks.Unknown},
		{"interrupted", context.Canceled, nil, checks.Unknown},
		{"connection reset after send", &net.OpError{Op: "read", Err: syscall.ECONNRESET}, nil, checks.Unknown},
		{"refused: never sent", &net.OpError{Op: "dial", Err: syscall.ECONNREFUSED}, nil, checks.Error},
		{"eof", errors.New("unexpected EOF"), nil, checks.Unknown},
	}
	for _, c := range cases {
		got, out := workload.Classify(nil, c.err, c.conflicts)
		if got != c.want {
			t.Errorf("%s: outcome %v, want %v", c.name, got, c.want)
		}
		var re *azcore.ResponseError
		if errors.As(c.err, &re) && (out.Status != re.StatusCode || out.ErrorCode != re.ErrorCode || out.RequestID != "req-1") {
			t.Errorf("%s: output %+v lost the status, code or request id", c.name, out)
		}
	}
}

func TestClassifyReadsResponseHeaders(t *testing.T) {
	h := http.Header{}
	h.Set("ETag", `"0x8D1"`)
	h.Set("x-ms-request-id", "abc")
	o, out := workload.Classify(&http.Response{StatusCode: 201, Header: h}, nil, nil)
	if o != checks.OK || out.Status != 201 || out.ETag != `"0x8D1"` || out.RequestID != "abc" {
		t.Errorf("got %v %+v", o, out)
	}
}

// A retried block commit whose marker block could not be staged was never
// sent: certainly not applied, not unknown.
func TestUnsentRetryIsAnError(t *testing.T) {
	if o, _ := workload.Classify(nil, fmt.Errorf("commit: %w", workload.ErrRetryNotStaged), blob.ConflictPrecondition); o != checks.Error {
		t.Errorf("an unsent retry classified %s, want error", o)
	}
}
