package conform

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/stormcheck/stormcheck/scenarios/conformance"
)

// Raw steps of the Queue and Table services, and the batches a raw step
// writes part by part: a table.raw entity group transaction, a blob.raw
// Blob Batch.

// rawServiceURL is the URL a queue.raw or table.raw step addresses: its
// queue's or table's URL with the step's path appended as written (its
// percent-encoding kept); a table.raw path starting with / is from the
// Table endpoint, and a request with parts goes to /$batch.
func (rr *RuleRun) rawServiceURL(st *conformance.Step, now time.Time) (*url.URL, error) {
	base, name, err := rr.rawBase(st)
	if err != nil {
		return nil, err
	}
	path := st.Raw.Path.Render(rr.Vars, now)
	var s string
	switch {
	case len(st.Raw.Parts) > 0:
		s = base + "/$batch"
	case st.Op == conformance.TableRawOp && strings.HasPrefix(path, "/"):
		s = base + path
	default:
		s = base + "/" + name + path
	}
	u, err := url.Parse(s)
	if err != nil {
		return nil, err
	}
	rr.rawQuery(u, st, now)
	return u, nil
}

// rawBase is the service endpoint (no query, no trailing slash) and the
// name of the step's queue or table.
func (rr *RuleRun) rawBase(st *conformance.Step) (base, name string, err error) {
	var raw string
	if st.Op == conformance.QueueRawOp {
		svc, err := rr.T.Queues()
		if err != nil {
			return "", "", err
		}
		raw, name = svc.URL(), rr.queue(st.Queue)
	} else {
		if raw = rr.T.TableURL(); raw == "" {
			return "", "", errors.New("raw table steps need a target reached with the account's key")
		}
		name = rr.table(st.Table)
	}
	u, err := url.Parse(raw)
	if err != nil {
		return "", "", err
	}
	u.RawQuery, u.Fragment = "", ""
	return strings.TrimSuffix(u.String(), "/"), name, nil
}

// signRaw signs a raw step's request as its sign: says, with the Table
// service's string for table.raw and the Blob service's for the others
// (the Queue service's is the same).
func (rr *RuleRun) signRaw(st *conformance.Step, req *http.Request) error {
	sign := st.Raw.Sign
	if sign == conformance.SignNone {
		return nil
	}
	if st.Op == conformance.TableRawOp {
		tright, twrong := rr.T.RawTableSigners()
		if tright == nil {
			return errors.New("raw table steps sign with the account's key; this target has none (sign: none sends unsigned)")
		}
		s := tright
		if sign == conformance.SignWrong {
			s = twrong
		}
		return s.Sign(req, sign == conformance.SignSharedKeyLite)
	}
	right, wrong := rr.T.RawSigners()
	if sign == conformance.SignWrong {
		return wrong.Sign(req)
	}
	return right.Sign(req)
}

// batchBody writes a table.raw step's parts as an entity group
// transaction: one change set holding each part as an application/http
// request (METHOD URL HTTP/1.1, the part's headers, a blank line, its
// body), and the request's Content-Type.
func (rr *RuleRun) batchBody(st *conformance.Step, now time.Time) ([]byte, string, error) {
	if st.Op == conformance.RawOp {
		return rr.blobBatchBody(st, now)
	}
	base, name, err := rr.rawBase(st)
	if err != nil {
		return nil, "", err
	}
	batch, change := "batch_"+rr.Prefix, "changeset_"+rr.Prefix
	var b bytes.Buffer
	b.WriteString("--" + batch + "\r\nContent-Type: multipart/mixed; boundary=" + change + "\r\n\r\n")
	for _, p := range st.Raw.Parts {
		path := p.Path.Render(rr.Vars, now)
		target := base + "/" + name + path
		if strings.HasPrefix(path, "/") {
			target = base + path
		}
		b.WriteString("--" + change + "\r\nContent-Type: application/http\r\nContent-Transfer-Encoding: binary\r\n\r\n")
		b.WriteString(p.Method + " " + target + " HTTP/1.1\r\n")
		for _, h := range p.Headers {
			b.WriteString(h.Name + ": " + h.Value.Render(rr.Vars, now) + "\r\n")
		}
		b.WriteString("\r\n" + p.Body + "\r\n")
	}
	b.WriteString("--" + change + "--\r\n--" + batch + "--\r\n")
	return b.Bytes(), "multipart/mixed; boundary=" + batch, nil
}

// blobBatchBody writes a blob.raw step's parts as a Blob Batch: each part
// an application/http sub-request (METHOD /container/path HTTP/1.1, the
// part's headers, then its own x-ms-date and Authorization as its sign:
// says, a blank line and its body), and the request's Content-Type.
func (rr *RuleRun) blobBatchBody(st *conformance.Step, now time.Time) ([]byte, string, error) {
	u, err := url.Parse(rr.T.Blob.URL())
	if err != nil {
		return nil, "", err
	}
	u.RawQuery, u.Fragment = "", ""
	container := strings.TrimSuffix(u.String(), "/") + "/" + rr.container(st.Container)
	right, wrong := rr.T.RawSigners()
	batch := "batch_" + rr.Prefix
	var b bytes.Buffer
	for i, p := range st.Raw.Parts {
		sub, err := http.NewRequest(p.Method, container+p.Path.Render(rr.Vars, now), nil)
		if err != nil {
			return nil, "", err
		}
		sub.Header = http.Header{}
		var names []string
		for _, h := range p.Headers {
			sub.Header[http.CanonicalHeaderKey(h.Name)] = []string{h.Value.Render(rr.Vars, now)}
			names = append(names, h.Name)
		}
		if sub.Header.Get("x-ms-date") == "" {
			sub.Header.Set("x-ms-date", now.UTC().Format(http.TimeFormat))
			names = append(names, "x-ms-date")
		}
		switch {
		case p.Sign == conformance.SignNone:
		case right == nil:
			return nil, "", errors.New("Blob Batch parts sign with the account's key; this target has none (sign: none sends a part unsigned)")
		case p.Sign == conformance.SignWrong:
			err = wrong.Sign(sub)
		default:
			err = right.Sign(sub)
		}
		if err != nil {
			return nil, "", err
		}
		if p.Sign != conformance.SignNone {
			names = append(names, "Authorization")
		}
		b.WriteString("--" + batch + "\r\nContent-Type: application/http\r\nContent-Transfer-Encoding: binary\r\nContent-ID: " + strconv.Itoa(i) + "\r\n\r\n")
		b.WriteString(p.Method + " " + sub.URL.RequestURI() + " HTTP/1.1\r\n")
		for _, n := range names {
			b.WriteString(n + ": " + sub.Header.Get(n) + "\r\n")
		}
		b.WriteString("\r\n" + p.Body + "\r\n")
	}
	b.WriteString("--" + batch + "--\r\n")
	return b.Bytes(), "multipart/mixed; boundary=" + batch, nil
}

// batchParts reads the status of each part of a batch response (a
// multipart body whose parts are application/http responses, in nested
// multipart change sets or not), in order, and the index the failed
// operation's message begins with. A part that does not hold an HTTP
// response has status 0. nil parts: the body is not multipart.
func batchParts(contentType string, body []byte) ([]int, *int) {
	mt, params, err := mime.ParseMediaType(contentType)
	if err != nil || !strings.HasPrefix(mt, "multipart/") || params["boundary"] == "" {
		return nil, nil
	}
	parts := []int{}
	var walk func(r io.Reader, boundary string) error
	walk = func(r io.Reader, boundary string) error {
		mr := multipart.NewReader(r, boundary)
		for {
			p, err := mr.NextPart()
			if err == io.EOF {
				return nil
			}
			if err != nil {
				return err
			}
			if mt, params, err := mime.ParseMediaType(p.Header.Get("Content-Type")); err == nil && strings.HasPrefix(mt, "multipart/") {
				if err := walk(p, params["boundary"]); err != nil {
					return err
				}
				continue
			}
			// The delimiter's CRLF ends the part, so a response without a
			// body has no blank line of its own after its headers (the
			// reference's own examples are written so): add one.
			data, err := io.ReadAll(p)
			if err != nil {
				return err
			}
			resp, err := http.ReadResponse(bufio.NewReader(bytes.NewReader(append(data, "\r\n"...))), nil)
			if err != nil {
				parts = append(parts, 0) // a part that is not an HTTP response
				continue
			}
			resp.Body.Close()
			parts = append(parts, resp.StatusCode)
		}
	}
	if err := walk(bytes.NewReader(body), params["boundary"]); err != nil && len(parts) == 0 {
		return nil, nil
	}
	var failed *int
	if m := failedOp.FindSubmatch(body); m != nil {
		if i, err := strconv.Atoi(string(m[1])); err == nil {
			failed = &i
		}
	}
	return parts, failed
}
