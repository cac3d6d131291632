package conformance

import (
	"fmt"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Raw steps for the Queue and Table services, and the parts of an entity
// group transaction written out by hand.

// The raw ops of the Queue and Table services.
const (
	// QueueRawOp sends a request to the step's queue (path is appended to
	// the queue's URL: /messages, /messages/ID). Signed as Blob requests
	// are: the Queue service's Shared Key string is the Blob service's.
	QueueRawOp = "queue.raw"
	// TableRawOp sends a request to the step's table (path is appended to
	// the table's URL: (PartitionKey='p',RowKey='r'), ()), or to the
	// service when path starts with / (/Tables), or an entity group
	// transaction to /$batch when the request has parts. Signed with the
	// Table service's Shared Key (or Shared Key Lite) string.
	TableRawOp = "table.raw"
)

// IsRaw says whether op is a raw step's (blob.raw, queue.raw, table.raw).
func IsRaw(op string) bool { return op == RawOp || op == QueueRawOp || op == TableRawOp }

// SignSharedKeyLite signs a table.raw request with Shared Key Lite.
const SignSharedKeyLite = "shared-key-lite"

// MaxRawParts bounds the parts of a raw batch after counts are expanded
// (the service allows 100 operations in a change set; rules test more).
const MaxRawParts = 1000

// RawPart is one sub-request of a raw batch, sent exactly as written: an
// operation of an entity group transaction inside its change set (request
// line METHOD <the table's URL><path> HTTP/1.1), or a sub-request of a
// Blob Batch (METHOD <the container's path><path> HTTP/1.1, with its own
// x-ms-date and signature); then its headers, a blank line and its body.
type RawPart struct {
	Method string
	// Path is appended to the step table's URL (a path starting with / is
	// from the service's endpoint instead), or to the container's path.
	Path    Template
	Headers []RawParam
	Body    string
	// Sign is how a Blob Batch sub-request is signed on its own
	// (SignSharedKey, SignWrong, SignNone); "" for a table part, which the
	// transaction's signature covers.
	Sign string
}

// partFields are the fields of a raw batch part.
var partFields = []string{"method", "path", "headers", "body", "sign", "count"}

// partIndex is the text a part repeated with count replaces, in its path
// and body, with its index (000, 001, ...).
const partIndex = "{n}"

// rawService decodes the fields of a raw request only the Queue and Table
// ops take: path and parts.
func (d *decoder) rawService(fs map[string]pair, path string, vars scope, op string, r *RawRequest) {
	if p, ok := fs["path"]; ok {
		switch {
		case op == RawOp:
			d.errorf(p.key, join(path, "path"), "blob.raw addresses its blob (or container); path applies to queue.raw and table.raw")
		case fs["parts"].val != nil:
			d.errorf(p.key, join(path, "path"), "a request with parts goes to /$batch; it has no path")
		default:
			if t, ok := d.template(p.val, join(path, "path"), vars); ok {
				r.Path = t
				if lit := t.literalPrefix(); op == QueueRawOp && lit != "" && !strings.HasPrefix(lit, "/") {
					d.errorf(p.val, join(path, "path"), "a queue.raw path is appended to the queue's URL and starts with / (/messages), got %q", lit)
				}
			}
		}
	}
	if p, ok := fs["parts"]; ok {
		if op == QueueRawOp {
			d.errorf(p.key, join(path, "parts"), "parts are the sub-requests of a Blob Batch (blob.raw) or the operations of an entity group transaction (table.raw); they apply to blob.raw and table.raw")
			return
		}
		if r.Method != "" && r.Method != "POST" {
			d.errorf(valueOf(p.val, "method"), join(path, "method"), "a batch is a POST, got %s", r.Method)
		}
		if fs["body"].val != nil || fs["body_base64"].val != nil {
			d.errorf(p.key, join(path, "parts"), "a request has parts or a body, not both (the runner writes the multipart body from the parts)")
		}
		r.Parts = d.rawParts(p.val, join(path, "parts"), vars, op)
	}
	if r.Sign == SignSharedKeyLite && op != TableRawOp {
		d.errorf(valueOf(fs["sign"].val, "sign"), join(path, "sign"), "shared-key-lite applies to table.raw (raw blob and queue steps sign with shared-key)")
	}
}

// rawParts reads a raw batch's parts, expanding counts.
func (d *decoder) rawParts(n *yaml.Node, path string, vars scope, op string) []RawPart {
	if n.Kind != yaml.SequenceNode || len(n.Content) == 0 {
		d.errorf(n, path, "must be a list of at least one part ({method, path, headers, body, count}), got %s", describe(n))
		return nil
	}
	var out []RawPart
	for i, item := range n.Content {
		item = resolve(item)
		ip := index(path, i)
		fs, ok := d.mapping(item, ip, "part fields ("+strings.Join(partFields, ", ")+")")
		if !ok {
			continue
		}
		d.allow(fs, ip, partFields)
		d.require(fs, item, ip, "method")
		part := RawPart{Method: d.method(fs, ip, "POST, PUT, MERGE, DELETE")}
		if p, ok := fs["path"]; ok {
			part.Path, _ = d.template(p.val, join(ip, "path"), vars)
		}
		if p, ok := fs["headers"]; ok {
			// A part's headers are text inside the body: any header may
			// be written, Content-Length and Host included.
			part.Headers = d.rawParams(p.val, join(ip, "headers"), vars, responseHeaders)
		}
		if p, ok := fs["body"]; ok {
			part.Body, _ = d.str(p.val, join(ip, "body"))
		}
		if op == RawOp {
			part.Sign = SignSharedKey
		}
		if p, ok := fs["sign"]; ok {
			allowed := []string{SignSharedKey, SignWrong, SignNone}
			s, good := d.str(p.val, join(ip, "sign"))
			switch {
			case !good:
			case op != RawOp:
				d.errorf(p.key, join(ip, "sign"), "an entity group transaction's operations are covered by its own signature; sign applies to the parts of a Blob Batch (blob.raw)")
			case !slices.Contains(allowed, s):
				d.errorf(p.val, join(ip, "sign"), "must be one of %s, got %q", strings.Join(allowed, ", "), s)
			default:
				part.Sign = s
			}
		}
		count := 1
		if p, ok := fs["count"]; ok {
			c, ok := integer(p.val)
			if !ok || c < 1 || c > MaxRawParts {
				d.errorf(p.val, join(ip, "count"), "must be a whole number 1..%d (the part is repeated, %s in its path and body becoming 000, 001, ...), got %s", MaxRawParts, partIndex, describe(p.val))
			} else {
				count = c
			}
		}
		if len(out)+count > MaxRawParts {
			d.errorf(item, ip, "a batch has at most %d parts here, got more", MaxRawParts)
			return out
		}
		for k := 0; k < count; k++ {
			p := part
			if count > 1 {
				p = part.indexed(k)
			}
			out = append(out, p)
		}
	}
	return out
}

// indexed is p with {n} in its path and body replaced by k (three
// digits at least).
func (p RawPart) indexed(k int) RawPart {
	n := fmt.Sprintf("%03d", k)
	p.Body = strings.ReplaceAll(p.Body, partIndex, n)
	parts := slices.Clone(p.Path.Parts)
	for i := range parts {
		if parts[i].Ref == "" && !parts[i].Now {
			parts[i].Literal = strings.ReplaceAll(parts[i].Literal, partIndex, n)
		}
	}
	p.Path.Parts = parts
	return p
}

// literalPrefix is the literal text t starts with ("" when it starts with
// a placeholder).
func (t Template) literalPrefix() string {
	if len(t.Parts) == 0 || t.Parts[0].Ref != "" || t.Parts[0].Now {
		return ""
	}
	return t.Parts[0].Literal
}

// partStatuses reads expect.parts: the status of each part of a batch's
// response, in order (a list, empty when the response has no parts).
func (d *decoder) partStatuses(n *yaml.Node, path string) []int {
	if n.Kind != yaml.SequenceNode {
		d.errorf(n, path, "must be a list of HTTP status codes, one per part of the batch's response in order, got %s", describe(n))
		return nil
	}
	out := []int{}
	for i, item := range n.Content {
		item = resolve(item)
		v, ok := integer(item)
		if !ok || v < 100 || v > 599 {
			d.errorf(item, index(path, i), "must be an HTTP status code (100..599), got %s", describe(item))
			continue
		}
		out = append(out, v)
	}
	return out
}
