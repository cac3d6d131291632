package throttle

import (
	"crypto/rand"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// The ServerBusy messages, from "Common REST API error codes"
// (https://learn.microsoft.com/rest/api/storageservices/common-rest-api-error-codes),
// which lists ServerBusy, Service Unavailable (503), with four user
// messages; the proxy uses two of them.
const (
	// MsgServerBusy answers a request whose unit (blob, partition, queue)
	// is over its target.
	MsgServerBusy = "The server is currently unable to receive requests. Please retry your request."
	// MsgAccountOps answers a request whose account is over its limit.
	MsgAccountOps = "Operations per second is over the account limit."
	// msgTooLarge is the documented RequestBodyTooLarge (413) message.
	msgTooLarge = "The size of the request body exceeds the maximum size permitted."
)

// Content types of error bodies, as the services send them.
const (
	ctXML       = "application/xml"
	ctTableJSON = "application/json;odata=minimalmetadata;streaming=true;charset=utf-8"
)

// newRequestID returns a random version-4 UUID, the form of x-ms-request-id.
func newRequestID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// errorBody returns the body a service sends with an error: XML for blob
// and queue, OData JSON for table. Like the service, the message carries
// the request id and the time on lines of their own.
func errorBody(svc service, code, msg, requestID string, now time.Time) []byte {
	full := msg + "\nRequestId:" + requestID + "\nTime:" + now.UTC().Format("2006-01-02T15:04:05.0000000Z")
	if svc == svcTable {
		type message struct {
			Lang  string `json:"lang"`
			Value string `json:"value"`
		}
		type odataError struct {
			Code    string  `json:"code"`
			Message message `json:"message"`
		}
		b, _ := json.Marshal(struct {
			Error odataError `json:"odata.error"`
		}{odataError{code, message{"en-US", full}}})
		return b
	}
	var sb strings.Builder
	sb.WriteString(`<?xml version="1.0" encoding="utf-8"?><Error><Code>`)
	_ = xml.EscapeText(&sb, []byte(code))
	sb.WriteString(`</Code><Message>`)
	_ = xml.EscapeText(&sb, []byte(full))
	sb.WriteString(`</Message></Error>`)
	return []byte(sb.String())
}

// writeError answers r with status and the service's error body and
// headers: x-ms-error-code, a fresh x-ms-request-id, x-ms-version and
// x-ms-client-request-id echoed from the request.
func writeError(w http.ResponseWriter, r *http.Request, svc service, status int, code, msg string, now time.Time) {
	id := newRequestID()
	body := errorBody(svc, code, msg, id, now)
	h := w.Header()
	if svc == svcTable {
		h.Set("Content-Type", ctTableJSON)
	} else {
		h.Set("Content-Type", ctXML)
	}
	h.Set("Content-Length", strconv.Itoa(len(body)))
	h.Set("x-ms-error-code", code)
	h.Set("x-ms-request-id", id)
	if v := r.Header.Get("x-ms-version"); v != "" {
		h.Set("x-ms-version", v)
	}
	if v := r.Header.Get("x-ms-client-request-id"); v != "" {
		h.Set("x-ms-client-request-id", v)
	}
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		_, _ = w.Write(body)
	}
}

// WriteServiceError answers r as service svc ("blob", "queue" or "table")
// does with an error: status, x-ms-error-code code, the service's error body
// carrying msg, a fresh request id. The fault stages answer with it.
func WriteServiceError(w http.ResponseWriter, r *http.Request, svc string, status int, code, msg string) {
	s := svcBlob
	switch svc {
	case "queue":
		s = svcQueue
	case "table":
		s = svcTable
	}
	writeError(w, r, s, status, code, msg, time.Now())
}
