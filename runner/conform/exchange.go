package conform

import (
	"bytes"
	"encoding/base64"
	"net/http"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"github.com/stormcheck/stormcheck/conformance/verdict"
	"github.com/stormcheck/stormcheck/runner/target"
)

// secretHeaders are headers whose values never reach a result file.
var secretHeaders = []string{"authorization", "x-ms-copy-source-authorization", "proxy-authorization"}

// header is one header line, its value redacted when it is a secret.
func header(name, value string) verdict.Header {
	if isSecretHeader(name) {
		value = "REDACTED"
	}
	return verdict.Header{Name: name, Value: target.Redact(value)}
}

func isSecretHeader(name string) bool {
	for _, s := range secretHeaders {
		if strings.EqualFold(name, s) {
			return true
		}
	}
	return false
}

// sortedHeaders are h's lines sorted by name, secrets redacted.
func sortedHeaders(h http.Header) []verdict.Header {
	names := make([]string, 0, len(h))
	for k := range h {
		names = append(names, k)
	}
	sort.Strings(names)
	var out []verdict.Header
	for _, k := range names {
		for _, v := range h[k] {
			out = append(out, header(k, v))
		}
	}
	return out
}

// setBody keeps body in m, cut at verdict.MaxExchangeBody bytes.
func setBody(m *verdict.Message, body []byte, total int64) {
	kept := body
	if len(kept) > verdict.MaxExchangeBody {
		kept = kept[:verdict.MaxExchangeBody]
	}
	if total < int64(len(body)) {
		total = int64(len(body))
	}
	m.BodyOmitted = total - int64(len(kept))
	if utf8.Valid(kept) {
		m.Body = target.Redact(string(kept))
	} else {
		m.Body, m.BodyBase64 = base64.StdEncoding.EncodeToString(kept), true
	}
}

// responseMessage is resp as received: status, headers, and body when it
// is known (nil body: consumed by the SDK).
func responseMessage(resp *http.Response, body []byte, known bool) *verdict.Message {
	m := &verdict.Message{Status: resp.Status, Headers: sortedHeaders(resp.Header)}
	if known {
		setBody(m, body, int64(len(body)))
	} else {
		m.BodyUnknown = true
	}
	return m
}

// sdkExchange is what an SDK step sent and received, from the response
// the pipeline captured: the request's headers as signed, its body when
// the step wrote it (sentBody: Put Blob's and Put Block's; the request is
// not read again, the transport may still be sending it), and the
// response's body when the SDK kept it (an error) or the step read it.
func sdkExchange(resp *http.Response, isErr bool, body string, sentBody *string) *verdict.Exchange {
	ex := &verdict.Exchange{}
	if req := resp.Request; req != nil {
		ex.Request = verdict.Message{Method: req.Method, URL: target.Redact(req.URL.String()), Headers: sortedHeaders(req.Header)}
		switch {
		case req.ContentLength == 0:
		case sentBody != nil:
			setBody(&ex.Request, []byte(*sentBody), req.ContentLength)
		default:
			ex.Request.BodyUnknown = true
		}
	}
	switch {
	case isErr:
		b, err := runtime.Payload(resp)
		ex.Response = responseMessage(resp, b, err == nil)
	case body != "":
		ex.Response = responseMessage(resp, []byte(body), true)
	default:
		ex.Response = responseMessage(resp, nil, resp.Request != nil && resp.Request.Method == http.MethodHead || resp.ContentLength == 0)
	}
	return ex
}

// errorCode is the response's error code: x-ms-error-code, else the
// <Code> of an XML error body or the code of a JSON one.
func errorCode(h http.Header, body []byte) string {
	if c := h.Get("x-ms-error-code"); c != "" {
		return c
	}
	if m := xmlCode.FindSubmatch(body); m != nil {
		return string(bytes.TrimSpace(m[1]))
	}
	if m := jsonCode.FindSubmatch(body); m != nil {
		return string(m[1])
	}
	return ""
}
