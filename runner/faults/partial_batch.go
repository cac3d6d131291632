package faults

import (
	"bytes"
	"io"
	"net/http"
	"regexp"
	"strconv"
)

// PartialBatch applies only part of a table batch: the second half of the
// changeset's operations is cut from the request before it is forwarded,
// so the service applies the first half alone (broken.partial-batch;
// batch-atomicity must fail). A table request's Shared Key signature does
// not cover the body.
type PartialBatch struct{}

// changesetBoundary finds the changeset's boundary in a batch body.
var changesetBoundary = regexp.MustCompile(`boundary=(changeset_[A-Za-z0-9_.-]+)`)

// Apply cuts the changeset of a batch in half and forwards it.
func (PartialBatch) Apply(w http.ResponseWriter, r *http.Request, next http.Handler) string {
	if r.Method != http.MethodPost || r.GetBody == nil {
		next.ServeHTTP(w, r)
		return "not a batch: forwarded"
	}
	rc, _ := r.GetBody()
	body, _ := io.ReadAll(rc)
	m := changesetBoundary.FindSubmatch(body)
	if m == nil {
		next.ServeHTTP(w, r)
		return "no changeset: forwarded"
	}
	sep := append([]byte("--"), m[1]...)
	parts := bytes.Split(body, sep)
	// parts: [head, op1, op2, ..., "--\r\n..." (the closing delimiter's tail)]
	ops := len(parts) - 2
	if ops < 2 {
		next.ServeHTTP(w, r)
		return "a single operation: forwarded"
	}
	keep := ops / 2
	cut := append(bytes.Join(parts[:1+keep], sep), sep...)
	cut = append(cut, parts[len(parts)-1]...)
	r.Body = io.NopCloser(bytes.NewReader(cut))
	r.ContentLength = int64(len(cut))
	r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(cut)), nil }
	next.ServeHTTP(w, r)
	return "forwarded " + strconv.Itoa(keep) + " of the batch's " + strconv.Itoa(ops) + " operations"
}
