package conform

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/stormcheck/stormcheck/conformance/verdict"
	"github.com/stormcheck/stormcheck/runner/target"
	"github.com/stormcheck/stormcheck/scenarios/conformance"
)

// maxRawBody bounds the response body a raw step reads (and judges).
const maxRawBody = 1 << 20

var (
	xmlCode  = regexp.MustCompile(`<Code>([^<]*)</Code>`)
	jsonCode = regexp.MustCompile(`"code"\s*:\s*"([^"]+)"`)
)

// rawURL is the URL of what a raw step addresses: for blob.raw its blob,
// or its container when it names no blob, under the target's Blob
// endpoint; for queue.raw and table.raw see rawServiceURL.
func (rr *RuleRun) rawURL(st *conformance.Step, now time.Time) (*url.URL, error) {
	if st.Op != conformance.RawOp {
		return rr.rawServiceURL(st, now)
	}
	u, err := url.Parse(rr.T.Blob.URL())
	if err != nil {
		return nil, err
	}
	u.RawQuery = "" // a SAS is not a raw step's: raw steps sign themselves
	p := strings.TrimSuffix(u.Path, "/") + "/" + rr.container(st.Container)
	if st.Blob != "" {
		p += "/" + st.Blob
	}
	u.Path = p
	rr.rawQuery(u, st, now)
	return u, nil
}

// rawQuery sets u's query to the step's parameters, in file order.
func (rr *RuleRun) rawQuery(u *url.URL, st *conformance.Step, now time.Time) {
	var q []string
	for _, qp := range st.Raw.Query {
		q = append(q, url.QueryEscape(qp.Name)+"="+url.QueryEscape(qp.Value.Render(rr.Vars, now)))
	}
	u.RawQuery = strings.Join(q, "&")
}

// doRaw sends a raw step's request exactly as written (see
// conformance.RawRequest) and observes the response as Do does.
func (rr *RuleRun) doRaw(ctx context.Context, st *conformance.Step) (verdict.StepObservation, *http.Response, callOut) {
	raw := st.Raw
	now := time.Now()
	fail := func(err error) (verdict.StepObservation, *http.Response, callOut) {
		return verdict.StepObservation{Err: target.Redact(target.ShortErr(err))}, nil, callOut{}
	}
	if right, _ := rr.T.RawSigners(); raw.Sign != conformance.SignNone && right == nil {
		return fail(errors.New("raw steps sign with the account's key; this target has none (sign: none sends unsigned)"))
	}
	u, err := rr.rawURL(st, now)
	if err != nil {
		return fail(err)
	}
	reqBody := raw.Body
	batchType := ""
	if len(raw.Parts) > 0 {
		if reqBody, batchType, err = rr.batchBody(st, now); err != nil {
			return fail(err)
		}
	}
	actx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	var wire struct {
		sync.Mutex
		headers []verdict.Header
	}
	actx = httptrace.WithClientTrace(actx, &httptrace.ClientTrace{WroteHeaderField: func(k string, vs []string) {
		wire.Lock()
		defer wire.Unlock()
		for _, v := range vs {
			wire.headers = append(wire.headers, header(k, v))
		}
	}})
	omitLength := false
	for _, o := range raw.Omit {
		omitLength = omitLength || o == "content-length"
	}
	var body io.Reader
	if reqBody != nil || omitLength {
		body = bytes.NewReader(reqBody)
	}
	req, err := http.NewRequestWithContext(actx, raw.Method, u.String(), body)
	if err != nil {
		return fail(err)
	}
	req.Header = http.Header{"User-Agent": {""}} // Go's own User-Agent is not the step's
	for _, h := range raw.Headers {
		req.Header[http.CanonicalHeaderKey(h.Name)] = []string{h.Value.Render(rr.Vars, now)}
	}
	if batchType != "" && req.Header.Get("Content-Type") == "" {
		req.Header.Set("Content-Type", batchType)
	}
	if omitLength {
		req.ContentLength, req.TransferEncoding = -1, []string{"chunked"}
	} else if len(reqBody) > 0 {
		// Signed as sent (Go writes Content-Length from ContentLength and
		// never from the header map).
		req.Header.Set("Content-Length", strconv.Itoa(len(reqBody)))
	}
	if raw.Date == conformance.DateAuto && req.Header.Get("x-ms-date") == "" {
		req.Header.Set("x-ms-date", now.UTC().Format(http.TimeFormat))
	}
	if err := rr.signRaw(st, req); err != nil {
		return fail(err)
	}
	ex := &verdict.Exchange{Request: verdict.Message{Method: raw.Method, URL: target.Redact(u.String())}}
	setBody(&ex.Request, reqBody, int64(len(reqBody)))
	resp, err := rr.T.HTTPClient().Do(req)
	wire.Lock()
	ex.Request.Headers = wire.headers
	wire.Unlock()
	if err != nil {
		obs, _, out := fail(err)
		obs.Exchange = ex
		return obs, nil, out
	}
	defer resp.Body.Close()
	data, rerr := io.ReadAll(io.LimitReader(resp.Body, maxRawBody))
	ex.Response = responseMessage(resp, data, true)
	out := callOut{body: string(data)}
	if len(raw.Parts) > 0 {
		out.svc.Parts, out.svc.FailedIndex = batchParts(resp.Header.Get("Content-Type"), data)
	}
	obs := rr.observe(st, resp, out, rerr)
	obs.ErrorCode = errorCode(resp.Header, data)
	obs.Exchange = ex
	return obs, resp, out
}
