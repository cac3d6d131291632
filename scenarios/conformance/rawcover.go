package conformance

import (
	"strings"
)

// A raw step claims coverage points like any other step, but what it runs
// is read from the request it writes, not from its op: RawRefOp names the
// checklist operation the request is (its method, its comp and restype
// parameters and the headers that select an operation), and a parameter
// point needs the request to send that header or query parameter (or, for
// the class absent, to leave it out). So a rule cannot claim a point of an
// operation its raw request is not, nor of a header the request does not
// carry.

// RawRefOp is the checklist op (a key of Ops with a Reference entry, or
// another step op) the raw request of a step addressing a blob (blob true)
// or its container sends; "" when it is none the checklist knows.
func RawRefOp(req *RawRequest, blob bool) string {
	if req == nil {
		return ""
	}
	q := func(name string) string { return rawParam(req.Query, name) }
	h := func(name string) string { return rawParam(req.Headers, name) }
	comp := q("comp")
	if !blob {
		if q("restype") != "container" {
			return ""
		}
		switch {
		case req.Method == "PUT" && comp == "":
			return "container.create"
		case req.Method == "DELETE" && comp == "":
			return "container.delete"
		case (req.Method == "GET" || req.Method == "HEAD") && comp == "":
			return "container.getprops"
		case req.Method == "PUT" && comp == "metadata":
			return "container.setmeta"
		case req.Method == "PUT" && comp == "acl":
			return "container.setacl"
		case (req.Method == "GET" || req.Method == "HEAD") && comp == "acl":
			return "container.getacl"
		case req.Method == "PUT" && comp == "lease":
			return leaseOp("container", h("x-ms-lease-action"))
		}
		return ""
	}
	switch req.Method {
	case "GET":
		switch comp {
		case "":
			return "blob.get"
		case "pagelist":
			return "blob.page.ranges"
		}
	case "HEAD":
		if comp == "" {
			return "blob.getprops"
		}
	case "DELETE":
		if comp == "" {
			return "blob.delete"
		}
	case "PUT":
		switch comp {
		case "":
			if h("x-ms-copy-source") != "" {
				return "blob.copy"
			}
			switch strings.ToLower(h("x-ms-blob-type")) {
			case "blockblob":
				return "blob.put"
			case "appendblob":
				return "blob.append.create"
			case "pageblob":
				return "blob.page.create"
			}
		case "metadata":
			return "blob.setmeta"
		case "properties":
			switch {
			case h("x-ms-sequence-number-action") != "":
				return "blob.page.seqnum"
			case h("x-ms-blob-content-length") != "":
				return "blob.page.resize"
			}
			return "blob.setprops"
		case "snapshot":
			return "blob.snapshot"
		case "copy":
			return "blob.abortcopy"
		case "block":
			return "blob.stage"
		case "blocklist":
			return "blob.commit"
		case "lease":
			return leaseOp("blob", h("x-ms-lease-action"))
		case "appendblock":
			return "blob.append"
		case "seal":
			return "blob.append.seal"
		case "page":
			switch strings.ToLower(h("x-ms-page-write")) {
			case "update":
				return "blob.page.put"
			case "clear":
				return "blob.page.clear"
			}
		}
	}
	return ""
}

// leaseOp is the lease op of an x-ms-lease-action; "" for a missing or
// unknown action (a request the reference refuses, not one of its
// operations).
func leaseOp(kind, action string) string {
	switch a := strings.ToLower(action); a {
	case "acquire", "renew", "change", "release", "break":
		return kind + ".lease." + a
	}
	return ""
}

// rawParam is the value of the header or query parameter name (any case)
// as written, literals only ("" when it is absent or only placeholders).
func rawParam(ps []RawParam, name string) string {
	for _, p := range ps {
		if strings.EqualFold(p.Name, name) {
			var b strings.Builder
			for _, part := range p.Value.Parts {
				if part.Ref == "" && !part.Now {
					b.WriteString(part.Literal)
				} else {
					b.WriteString("${}")
				}
			}
			return b.String()
		}
	}
	return ""
}

// rawHas reports whether the request sends the header or query parameter
// name (any case).
func rawHas(req *RawRequest, name string) bool {
	for _, ps := range [][]RawParam{req.Headers, req.Query} {
		for _, p := range ps {
			if strings.EqualFold(p.Name, name) {
				return true
			}
		}
	}
	return false
}

// RefOp is the checklist op a step runs: its op, or for a raw step the
// operation its request is (RawRefOp), "" when none.
func (s *Step) RefOp() string {
	if s.Op != RawOp {
		return s.Op
	}
	return RawRefOp(s.Raw, s.Blob != "")
}

// rawSendsClass reports whether a raw step's request sends parameter name
// in a way that can be the class: absent needs it left out, star the value
// *, list a comma-separated list; the other classes depend on the
// resource's state, so sending the parameter is all the request can show.
func rawSendsClass(req *RawRequest, name, class string) bool {
	has := rawHas(req, name)
	if class == ClassAbsent {
		return !has
	}
	if !has {
		return false
	}
	v := rawParam(req.Headers, name)
	if v == "" {
		v = rawParam(req.Query, name)
	}
	switch class {
	case ClassStar:
		return strings.TrimSpace(v) == "*"
	case ClassList:
		return strings.Contains(v, ",")
	}
	return true
}
