package target

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"

	"github.com/stormcheck/stormcheck/checks"
)

// callError is a harness call that had to succeed (setup, a final read)
// and did not. It says what was tried, where, what came back and, when the
// answer makes it clear, what to do.
type callError struct {
	what string
	// service is the Storage service the call went to: Blob, Queue or Table.
	service string
	// endpoint is that service's URL, when known (Run adds it).
	endpoint                 string
	status                   int
	code, requestID, outcome string
	err                      string
}

// opError describes a harness call that had to succeed and did not.
func OpError(what string, op *checks.Op) error {
	return &callError{what: what, service: serviceOf(op.Kind), status: op.Out.Status, code: op.Out.ErrorCode,
		requestID: op.Out.RequestID, outcome: op.Outcome.String(), err: op.Out.Err}
}

func (e *callError) Error() string {
	s := e.what
	if e.endpoint != "" {
		s += " at " + e.endpoint
	}
	if e.status == 0 {
		s += ": no answer (" + e.outcome + ")"
		if e.err != "" {
			s += ": " + e.err
		}
		return s + "; is the target running, and is this its " + e.service + " endpoint?"
	}
	return s + ": " + describeAnswer(e.service, e.status, e.code, e.requestID)
}

// serviceOf names the Storage service an op kind (blob.put,
// container.create, table.insert, queue.get ...) goes to.
func serviceOf(kind string) string {
	switch {
	case strings.HasPrefix(kind, "table."):
		return "Table"
	case strings.HasPrefix(kind, "queue."):
		return "Queue"
	case strings.HasPrefix(kind, "files."):
		return "File"
	}
	return "Blob"
}

// describeAnswer says what an HTTP answer from a Storage endpoint was and,
// where it is clear, what to do about it. An answer without the
// x-ms-request-id and x-ms-error-code every Storage service sends did not
// come from one: the endpoint is probably not a Storage endpoint at all.
func describeAnswer(service string, status int, code, requestID string) string {
	s := fmt.Sprintf("HTTP %d", status)
	if text := http.StatusText(status); text != "" {
		s += " " + text
	}
	if code == "" && requestID == "" {
		s += ", and not from Azure Storage (no x-ms-request-id or x-ms-error-code header): "
		if service == "" {
			return s + "is this a Storage service endpoint? Check the endpoints the target names " +
				"(BlobEndpoint=, QueueEndpoint=, TableEndpoint= in a connection string; blob_url, queue_url, table_url in the scenario)"
		}
		return s + fmt.Sprintf("is this a %s service endpoint? Check the %s endpoint the target names (%sEndpoint= in a connection string, %s_url in the scenario)",
			service, service, service, strings.ToLower(service))
	}
	if code != "" {
		s += " (" + code + ")"
	}
	switch {
	case status == http.StatusForbidden && (code == "AuthenticationFailed" || code == "AuthorizationFailure"):
		s += ": the service refused the request's signature: check the account key (or SAS) the target uses"
	case status == http.StatusForbidden:
		s += ": the credential is not allowed to do this: check its role or SAS permissions"
	case status == http.StatusNotFound && code == "ResourceNotFound":
		s += ": the service does not know this resource: check the account name in the endpoint"
	}
	return s
}

// describeCallErr is one line for an SDK error (never the SDK's dozen
// lines with the request and the whole body): the answer as describeAnswer
// says it, with the URL that was tried (its query, which may hold a SAS,
// left out); or, when nothing answered, the redacted transport error.
func DescribeCallErr(err error) string {
	var re *azcore.ResponseError
	if !errors.As(err, &re) {
		return Redact(ShortErr(err))
	}
	requestID, service, tried := "", "", ""
	if resp := re.RawResponse; resp != nil {
		requestID = resp.Header.Get("x-ms-request-id")
		if resp.Request != nil && resp.Request.URL != nil {
			tried = resp.Request.Method + " " + endpointOf(resp.Request.URL.String())
			service = serviceOfURL(resp.Request.URL.Host)
		}
	}
	s := describeAnswer(service, re.StatusCode, re.ErrorCode, requestID)
	if tried != "" {
		s = Redact(tried) + ": " + s
	}
	return s
}

// serviceOfURL names the Storage service of an Azure host name
// (ACCOUNT.blob.core.windows.net ...); "" when the host does not say.
func serviceOfURL(host string) string {
	for _, s := range []string{"Blob", "Queue", "Table", "File"} {
		if strings.Contains(host, "."+strings.ToLower(s)+".") {
			return s
		}
	}
	return ""
}

// withEndpoint adds the endpoint of the service a failed harness call went
// to, so the message says where it was tried.
func WithEndpoint(t *Target, err error) error {
	var ce *callError
	if t == nil || !errors.As(err, &ce) || ce.endpoint != "" {
		return err
	}
	switch ce.service {
	case "Blob":
		if t.Blob != nil {
			ce.endpoint = endpointOf(t.Blob.URL())
		}
	case "Queue":
		if t.Queue != nil {
			ce.endpoint = endpointOf(t.Queue.URL())
		}
	}
	return err
}

// endpointOf is a service URL without its query (which may hold a SAS).
func endpointOf(u string) string {
	if i := strings.IndexByte(u, '?'); i >= 0 {
		u = u[:i]
	}
	return strings.TrimSuffix(u, "/")
}

// isStatus reports whether err is the service answering status.
func IsStatus(err error, status int) bool {
	var re *azcore.ResponseError
	return errors.As(err, &re) && re.StatusCode == status
}
