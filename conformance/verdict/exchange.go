package verdict

// Exchange is one step's request and response as sent and received, with
// secrets redacted (the Authorization header, a SAS signature, account
// keys) and bodies cut at MaxExchangeBody bytes: what an upstream report
// quotes.
type Exchange struct {
	Request Message `json:"request"`
	// Response is nil when no response came (a transport error).
	Response *Message `json:"response,omitempty"`
}

// Message is one HTTP request or response.
type Message struct {
	// Method and URL are the request's (the URL with any SAS signature
	// redacted).
	Method string `json:"method,omitempty"`
	URL    string `json:"url,omitempty"`
	// Status is the response's status line, e.g. "412 Precondition Failed".
	Status string `json:"status,omitempty"`
	// Headers are in the order sent (raw steps) or sorted by name.
	Headers []Header `json:"headers,omitempty"`
	// Body is the body's first MaxExchangeBody bytes, as text; base64 when
	// BodyBase64 (it was not UTF-8 text).
	Body       string `json:"body,omitempty"`
	BodyBase64 bool   `json:"body_base64,omitempty"`
	// BodyOmitted counts the body's bytes past MaxExchangeBody not kept.
	BodyOmitted int64 `json:"body_omitted,omitempty"`
	// BodyUnknown says the body was consumed by the SDK and not kept.
	BodyUnknown bool `json:"body_unknown,omitempty"`
}

// Header is one header line.
type Header struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// MaxExchangeBody bounds the body kept of each request and response.
const MaxExchangeBody = 4096
