package workload

import (
	"errors"
	"net"
	"net/http"
	"strconv"
	"strings"
	"syscall"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/runner/faults"
	"github.com/stormcheck/stormcheck/runner/target"
)

// classifyAnswer turns the result of one attempt into an outcome and the recorded
// output (classify then accounts for injected faults). conflicts lists the (status, error code) pairs that mean "the race
// was lost as documented" for this call; an empty code matches any code.
func classifyAnswer(resp *http.Response, err error, conflicts []Expect) (checks.Outcome, checks.Output) {
	var out checks.Output
	re := responseError(err)
	if resp == nil && re != nil {
		resp = re.RawResponse
	}
	if resp != nil {
		// Canonical keys, looked up directly: a response's header keys are
		// canonical, and Header.Get would canonicalize (allocate) each name.
		h := resp.Header
		out.Status = resp.StatusCode
		out.RequestID = first(h["X-Ms-Request-Id"])
		out.ErrorCode = first(h["X-Ms-Error-Code"])
		out.ETag = first(h["Etag"])
		out.LastModified = first(h["Last-Modified"])
		out.Err = first(h["X-Stormcheck-Upstream-Error"]) // throttle.UpstreamErrorHeader: the proxy's 502 for a silent target
		if ao := first(h["X-Ms-Blob-Append-Offset"]); ao != "" {
			if n, perr := strconv.ParseInt(ao, 10, 64); perr == nil {
				out.AppendOffset = &n
			}
		}
		if lt := first(h["X-Ms-Lease-Time"]); lt != "" {
			if n, perr := strconv.Atoi(lt); perr == nil {
				out.LeaseTime = &n
			}
		}
	}
	if err == nil {
		return checks.OK, out
	}
	if re != nil {
		out.Status = re.StatusCode
		if re.ErrorCode != "" {
			out.ErrorCode = re.ErrorCode
		}
		if re.RawResponse != nil && out.RequestID == "" {
			out.RequestID = first(re.RawResponse.Header["X-Ms-Request-Id"])
		}
		for _, c := range conflicts {
			if c.Status == re.StatusCode && (c.Code == "" || c.Code == out.ErrorCode) {
				return checks.Conflict, out
			}
		}
		switch {
		case re.StatusCode == http.StatusNotModified:
			// A conditional read's documented success: the cached version
			// (In.IfNoneMatch) is still current.
			return checks.OK, out
		case re.StatusCode == http.StatusServiceUnavailable:
			return checks.Throttled, out
		case re.StatusCode == http.StatusInternalServerError && out.ErrorCode == "OperationTimedOut":
			return checks.Throttled, out
		case re.StatusCode >= 500:
			// A 5xx other than throttling may or may not have been applied.
			return checks.Unknown, out
		}
		return checks.Error, out
	}
	out.Err = target.Redact(target.ShortErr(err))
	if notSent(err) {
		return checks.Error, out
	}
	return checks.Unknown, out
}

// Expect names a status and, optionally, an x-ms-error-code.
type Expect struct {
	Status int
	Code   string
}

// notSent reports whether err certainly happened before the request reached
// the service: a refused or failed dial. Anything else (a timeout, a reset,
// an EOF) may have happened after the service applied the request.
func notSent(err error) bool {
	if errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, ErrRetryNotStaged) {
		return true
	}
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" {
		return true
	}
	var dns *net.DNSError
	return errors.As(err, &dns)
}

// first is a header's first value, "" without one.
func first(v []string) string {
	if len(v) == 0 {
		return ""
	}
	return v[0]
}

// responseError is err's *azcore.ResponseError, nil without one. Looking it
// up here, and only for an error, keeps the success path free of the heap
// allocation errors.As's target would cost.
func responseError(err error) *azcore.ResponseError {
	if err == nil {
		return nil
	}
	var re *azcore.ResponseError
	if errors.As(err, &re) {
		return re
	}
	return nil
}

// classify is classifyAnswer, then what an injected fault changes: the
// fault is named in the output, and the answer to a request delivered
// twice (http.duplicate) says nothing certain about the first delivery,
// which may have applied: any answer but a success becomes unknown.
func Classify(resp *http.Response, err error, conflicts []Expect) (checks.Outcome, checks.Output) {
	outcome, out := classifyAnswer(resp, err, conflicts)
	if re := responseError(err); resp == nil && re != nil { // responseError: nothing allocated without an error
		resp = re.RawResponse
	}
	if resp == nil {
		return outcome, out
	}
	if out.Fault = first(resp.Header[faults.Header]); out.Fault != "" && outcome != checks.OK &&
		strings.HasSuffix(out.Fault, "(http.duplicate)") {
		outcome = checks.Unknown
	}
	return outcome, out
}

// errRetryNotStaged: a retried commit whose marker block could not be
// staged is not sent: the attempt is recorded as an error (certainly not
// applied; notSent knows this error).
var ErrRetryNotStaged = errors.New("retry's marker block not staged: commit not sent")
