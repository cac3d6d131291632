package conformance

import (
	"encoding/base64"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// RawOp is the op of a raw step: a request to the Blob service sent
// exactly as the step writes it, not built by the SDK.
const RawOp = "blob.raw"

// RawRequest is what a raw step sends: its method, query and headers as
// written and nothing else, besides what Sign and Date ask for and what
// HTTP itself needs (Host; Content-Length, or chunked transfer when
// Content-Length is omitted).
type RawRequest struct {
	// Method is the HTTP method, upper case.
	Method string
	// Query is the query string's parameters, in file order.
	Query []RawParam
	// Headers are the request headers, in file order.
	Headers []RawParam
	// Omit names headers the SDK would send and this step leaves out on
	// purpose (lower case). Raw steps send only what they state, so Omit
	// sends nothing: it says, and the loader checks, that the absence is
	// the point. Content-Length is the exception: omitting it sends the
	// body with chunked transfer encoding.
	Omit []string
	// Sign is how the request is signed: SignSharedKey, SignWrong or
	// SignNone.
	Sign string
	// Date is DateAuto (x-ms-date set to the time of sending when the step
	// writes none) or DateNone.
	Date string
	// Body is the request body (from body or body_base64); nil sends none.
	Body []byte
	// Path is what queue.raw and table.raw append to their queue's or
	// table's URL (see QueueRawOp, TableRawOp).
	Path Template
	// Parts are the operations of a table.raw entity group transaction
	// (POST /$batch, one change set); nil for other requests.
	Parts []RawPart
}

// RawParam is one header or query parameter of a raw request.
type RawParam struct {
	Name  string
	Value Template
}

// The ways a raw request is signed.
const (
	// SignSharedKey signs with the account's key (runner/sharedkey).
	SignSharedKey = "shared-key"
	// SignWrong signs with a key that is not the account's: a
	// well-formed signature the service must refuse.
	SignWrong = "wrong"
	// SignNone sends no Authorization header.
	SignNone = "none"
)

// The ways a raw request is dated.
const (
	DateAuto = "auto"
	DateNone = "none"
)

// Template is a header, query or expected value: literal text with
// ${name} placeholders for captured values (see templateHelp).
type Template struct {
	Parts []TemplatePart
}

// TemplatePart is a literal (Ref == "" and !Now) or a placeholder.
type TemplatePart struct {
	Literal string
	// Ref is the captured variable; Now is the time the step runs.
	Ref string
	Now bool
	// Offset is added to a date (now or a captured last_modified).
	Offset time.Duration
	// Format is how a date is written (DateFormats); "" is RFC 1123.
	Format string
	// Unquote strips the double quotes around a captured ETag; Quote adds
	// them.
	Unquote, Quote bool
}

// DateFormats are the date formats a template may write a date in, by
// name: the three HTTP/1.1 allows (RFC 1123, RFC 850, asctime) and ISO
// 8601 (which HTTP does not).
var DateFormats = map[string]string{
	"rfc1123": http.TimeFormat,
	"rfc850":  "Monday, 02-Jan-06 15:04:05 GMT",
	"asctime": time.ANSIC,
	"iso8601": "2006-01-02T15:04:05Z",
}

// templateHelp says what a template holds.
const templateHelp = `text with ${name} placeholders: a variable captured by an earlier step, ${now}; a date may take an offset ` +
	`and a format (${now+1h}, ${lm-1s|rfc850}; formats rfc1123, rfc850, asctime, iso8601), an ETag |unquote or |quote`

var (
	placeholderSyn = regexp.MustCompile(`\$\{([^}]*)\}`)
	placeholderIn  = regexp.MustCompile(`^([a-z_][a-z0-9_]*)(?:([+-])([0-9]+)([smhd]))?(?:\|([a-z0-9]+))?$`)
	methodSyn      = regexp.MustCompile(`^[A-Z]+$`)
	headerNameSyn  = regexp.MustCompile("^[A-Za-z0-9!#$%&'*+.^_`|~-]+$")
)

// rawFields are the fields of a raw step's request.
var rawFields = []string{"method", "path", "query", "headers", "omit", "sign", "date", "body", "body_base64", "parts"}

// rawSentByHTTP are headers the HTTP client writes itself: a raw step may
// not state them.
var rawSentByHTTP = []string{"host", "content-length", "transfer-encoding", "connection", "authorization"}

// request decodes a raw step's request.
func (d *decoder) request(n *yaml.Node, path string, vars scope, op string) *RawRequest {
	fs, ok := d.mapping(n, path, "request fields ("+strings.Join(rawFields, ", ")+")")
	if !ok {
		return nil
	}
	d.allow(fs, path, rawFields)
	d.require(fs, n, path, "method")
	r := &RawRequest{Sign: SignSharedKey, Date: DateAuto}
	r.Method = d.method(fs, path, "GET, HEAD, PUT, DELETE")
	if p, ok := fs["query"]; ok {
		r.Query = d.rawParams(p.val, join(path, "query"), vars, queryParams)
	}
	if p, ok := fs["headers"]; ok {
		r.Headers = d.rawParams(p.val, join(path, "headers"), vars, requestHeaders)
	}
	if p, ok := fs["omit"]; ok {
		names, _ := d.strList(p.val, join(path, "omit"), "header names")
		for i, name := range names {
			item, ip := resolve(p.val.Content[i]), index(join(path, "omit"), i)
			low := strings.ToLower(name)
			switch {
			case !headerNameSyn.MatchString(name):
				d.errorf(item, ip, "must be a header name, got %q", name)
			case slices.ContainsFunc(r.Headers, func(h RawParam) bool { return strings.EqualFold(h.Name, name) }):
				d.errorf(item, ip, "%s is both in headers and in omit; a header is either sent or left out", name)
			case low == "x-ms-date":
				d.errorf(item, ip, "x-ms-date is left out with date: none, not omit")
			case low == "authorization":
				d.errorf(item, ip, "Authorization is left out with sign: none, not omit")
			case slices.Contains(r.Omit, low):
				d.errorf(item, ip, "%s is listed twice", name)
			default:
				r.Omit = append(r.Omit, low)
			}
		}
	}
	choice := func(name string, dst *string, allowed ...string) {
		if p, ok := fs[name]; ok {
			if s, ok := d.str(p.val, join(path, name)); ok {
				if !slices.Contains(allowed, s) {
					d.errorf(p.val, join(path, name), "must be one of %s, got %q", strings.Join(allowed, ", "), s)
				}
				*dst = s
			}
		}
	}
	choice("sign", &r.Sign, SignSharedKey, SignSharedKeyLite, SignWrong, SignNone)
	choice("date", &r.Date, DateAuto, DateNone)
	dated := slices.ContainsFunc(r.Headers, func(h RawParam) bool {
		return strings.EqualFold(h.Name, "Date") || strings.EqualFold(h.Name, "x-ms-date")
	})
	// The Table signer signs a Date header when there is no x-ms-date; the
	// Blob signer (also the Queue service's) always signs x-ms-date.
	if r.Date == DateNone && (r.Sign == SignSharedKey || r.Sign == SignSharedKeyLite) && !(dated && op == TableRawOp) {
		d.errorf(valueOf(n, "date"), join(path, "date"), "a Shared Key signature covers the request's date, so date: none takes sign: none or sign: wrong (or, on table.raw, a Date header in headers)")
	}
	body, b64 := fs["body"], fs["body_base64"]
	switch {
	case body.val != nil && b64.val != nil:
		d.errorf(b64.key, join(path, "body_base64"), "a request has body or body_base64, not both")
	case body.val != nil:
		if s, ok := d.str(body.val, join(path, "body")); ok {
			r.Body = []byte(s)
		}
	case b64.val != nil:
		if s, ok := d.str(b64.val, join(path, "body_base64")); ok {
			b, err := base64.StdEncoding.DecodeString(s)
			if err != nil {
				d.errorf(b64.val, join(path, "body_base64"), "must be standard base64 (RFC 4648, with padding): %v", err)
			}
			r.Body = b
		}
	}
	d.rawService(fs, path, vars, op, r)
	return r
}

// method reads the method field of fs: an HTTP method in upper case (e.g.
// names a few).
func (d *decoder) method(fs map[string]pair, path, eg string) string {
	p, ok := fs["method"]
	if !ok {
		return ""
	}
	m, ok := d.str(p.val, join(path, "method"))
	if ok && !methodSyn.MatchString(m) {
		d.errorf(p.val, join(path, "method"), "must be an HTTP method in upper case (%s, ...), got %q", eg, m)
	}
	return m
}

// paramKind says what rawParams reads.
type paramKind int

const (
	queryParams paramKind = iota
	requestHeaders
	responseHeaders
)

// rawParams reads a mapping of header (or query parameter) names to
// templates.
func (d *decoder) rawParams(n *yaml.Node, path string, vars scope, kind paramKind) []RawParam {
	headers := kind != queryParams
	what := "query parameter names to values"
	if headers {
		what = "header names to values"
	}
	fs, ok := d.mapping(n, path, what)
	if !ok {
		return nil
	}
	var out []RawParam
	seen := map[string]string{}
	for _, name := range sortedByPosition(fs) {
		p := fs[name]
		fp := join(path, name)
		if headers {
			low := strings.ToLower(name)
			switch {
			case !headerNameSyn.MatchString(name):
				d.errorf(p.key, fp, "must be a header name (letters, digits and !#$%%&'*+.^_`|~-), got %q", name)
				continue
			case kind == requestHeaders && slices.Contains(rawSentByHTTP, low):
				d.errorf(p.key, fp, "%s is written by the HTTP client (or by sign:); a raw step states every other header, and leaves Content-Length out with omit", name)
				continue
			case seen[low] != "":
				d.errorf(p.key, fp, "%s is given twice (as %s); header names are case-insensitive", name, seen[low])
				continue
			}
			seen[low] = name
		}
		if t, ok := d.template(p.val, fp, vars); ok {
			out = append(out, RawParam{Name: name, Value: t})
		}
	}
	return out
}

// template reads a value with ${...} placeholders (see templateHelp).
func (d *decoder) template(n *yaml.Node, path string, vars scope) (Template, bool) {
	s, ok := d.str(n, path)
	if !ok {
		return Template{}, false
	}
	var t Template
	last := 0
	for _, m := range placeholderSyn.FindAllStringSubmatchIndex(s, -1) {
		if m[0] > last {
			t.Parts = append(t.Parts, TemplatePart{Literal: s[last:m[0]]})
		}
		last = m[1]
		part, ok := d.placeholder(n, path, vars, s[m[2]:m[3]])
		if !ok {
			return Template{}, false
		}
		t.Parts = append(t.Parts, part)
	}
	if rest := s[last:]; rest != "" {
		if strings.Contains(rest, "${") {
			d.errorf(n, path, "an unclosed ${ in %q; a value is %s", s, templateHelp)
			return Template{}, false
		}
		t.Parts = append(t.Parts, TemplatePart{Literal: rest})
	}
	return t, true
}

// placeholder reads the inside of one ${...}.
func (d *decoder) placeholder(n *yaml.Node, path string, vars scope, in string) (TemplatePart, bool) {
	m := placeholderIn.FindStringSubmatch(in)
	if m == nil {
		d.errorf(n, path, "bad placeholder ${%s}; a value is %s", in, templateHelp)
		return TemplatePart{}, false
	}
	p := TemplatePart{Ref: m[1]}
	what := "date"
	if m[1] == "now" {
		p.Ref, p.Now = "", true
	} else {
		c, ok := vars[m[1]]
		if !ok {
			d.errorf(n, path, "${%s}: $%s is not captured by an earlier step of this rule (captured so far: %s)", in, m[1], vars.names())
			return TemplatePart{}, false
		}
		what = c.what
	}
	isDate := what == "date" || what == "last_modified"
	if m[2] != "" {
		if !isDate {
			d.errorf(n, path, "${%s}: an offset applies to a date (${now} or a captured last_modified); $%s holds a %s", in, m[1], what)
			return TemplatePart{}, false
		}
		k, err := strconv.ParseInt(m[3], 10, 32)
		if err != nil {
			d.errorf(n, path, "${%s}: offset too large", in)
			return TemplatePart{}, false
		}
		p.Offset = time.Duration(k) * dateUnit[m[4]]
		if m[2] == "-" {
			p.Offset = -p.Offset
		}
	}
	switch f := m[5]; {
	case f == "":
	case f == "unquote" || f == "quote":
		if what != "etag" {
			d.errorf(n, path, "${%s}: |%s applies to a captured etag; $%s holds a %s", in, f, m[1], what)
			return TemplatePart{}, false
		}
		p.Unquote, p.Quote = f == "unquote", f == "quote"
	case DateFormats[f] != "":
		if !isDate {
			d.errorf(n, path, "${%s}: the date format |%s applies to a date; $%s holds a %s", in, f, m[1], what)
			return TemplatePart{}, false
		}
		p.Format = f
	default:
		d.errorf(n, path, "${%s}: unknown filter |%s; filters: unquote, quote (an etag), rfc1123, rfc850, asctime, iso8601 (a date)", in, f)
		return TemplatePart{}, false
	}
	return p, true
}

// Render writes t with the captured values vars and the time now.
func (t Template) Render(vars map[string]string, now time.Time) string {
	var b strings.Builder
	for _, p := range t.Parts {
		if p.Ref == "" && !p.Now {
			b.WriteString(p.Literal)
			continue
		}
		var s string
		if p.Now {
			s = renderDate(now, p)
		} else if s = vars[p.Ref]; p.Offset != 0 || p.Format != "" {
			if at, err := http.ParseTime(s); err == nil {
				s = renderDate(at, p)
			}
		}
		switch {
		case p.Unquote:
			s = strings.TrimSuffix(strings.TrimPrefix(s, `"`), `"`)
		case p.Quote && !strings.HasPrefix(s, `"`):
			s = `"` + s + `"`
		}
		b.WriteString(s)
	}
	return b.String()
}

func renderDate(at time.Time, p TemplatePart) string {
	f := DateFormats[p.Format]
	if f == "" {
		f = http.TimeFormat
	}
	return at.Add(p.Offset).UTC().Format(f)
}
