package faults

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
)

// Request is what a fault's scope looks at: the service, the operation
// kind (one of scenarios.FaultOps, or "" when not one of them) and the key
// (a blob's name, a table entity's PartitionKey, a queue's name; "" when
// the request has none).
type Request struct {
	Service, Op, Key string
}

// Classify tells svc's request r (with its body) apart as a fault's scope
// sees it. Paths are path-style: /ACCOUNT/RESOURCE...
func Classify(svc string, r *http.Request, body []byte) Request {
	req := Request{Service: svc}
	rest := strings.TrimPrefix(r.URL.Path, "/")
	if _, after, ok := strings.Cut(rest, "/"); ok {
		rest = after // drop the account
	} else {
		rest = ""
	}
	q := r.URL.Query()
	comp := strings.ToLower(q.Get("comp"))
	switch svc {
	case "blob":
		classifyBlob(&req, r.Method, rest, comp, strings.ToLower(q.Get("restype")))
	case "queue":
		classifyQueue(&req, r.Method, rest, q)
	case "table":
		classifyTable(&req, r.Method, rest, body)
	}
	return req
}

func classifyBlob(req *Request, method, rest, comp, restype string) {
	container, blob, hasBlob := strings.Cut(rest, "/")
	if container == "" {
		return
	}
	if !hasBlob || blob == "" {
		switch {
		case comp == "list":
			req.Op = "container.list"
		case comp == "lease":
			req.Op = "container.lease"
		case comp == "metadata" && method == http.MethodPut:
			req.Op = "container.setmeta"
		case comp == "acl" && method == http.MethodPut:
			req.Op = "container.setacl"
		case restype == "container" && method == http.MethodPut && comp == "":
			req.Op = "container.create"
		case restype == "container" && method == http.MethodDelete:
			req.Op = "container.delete"
		case method == http.MethodGet || method == http.MethodHead:
			req.Op = "container.get"
		}
		return
	}
	req.Key, _ = url.PathUnescape(blob)
	switch {
	case comp == "block":
		req.Op = "blob.block"
	case comp == "blocklist" && method == http.MethodPut:
		req.Op = "blob.commit"
	case comp == "lease":
		req.Op = "blob.lease"
	case comp == "metadata" && method == http.MethodPut:
		req.Op = "blob.setmeta"
	case method == http.MethodGet || method == http.MethodHead:
		req.Op = "blob.get"
	case method == http.MethodPut && comp == "":
		req.Op = "blob.put"
	case method == http.MethodDelete:
		req.Op = "blob.delete"
	}
}

func classifyQueue(req *Request, method, rest string, q url.Values) {
	queue, sub, _ := strings.Cut(rest, "/")
	if queue == "" {
		return
	}
	req.Key = queue
	switch {
	case sub == "" && method == http.MethodPut && q.Get("comp") == "":
		req.Op = "queue.create"
	case sub == "messages" && method == http.MethodPost:
		req.Op = "queue.put"
	case sub == "messages" && method == http.MethodGet && strings.EqualFold(q.Get("peekonly"), "true"):
		req.Op = "queue.peek"
	case sub == "messages" && method == http.MethodGet:
		req.Op = "queue.get"
	case strings.HasPrefix(sub, "messages/") && method == http.MethodPut:
		req.Op = "queue.update"
	case strings.HasPrefix(sub, "messages/") && method == http.MethodDelete:
		req.Op = "queue.delete"
	}
}

// partitionKey finds PartitionKey='x' in a resource path, or
// "PartitionKey":"x" in a JSON body (the first of a batch).
var (
	pkInPath = regexp.MustCompile(`PartitionKey='((?:[^']|'')*)'`)
	pkInJSON = regexp.MustCompile(`"PartitionKey"\s*:\s*"((?:[^"\\]|\\.)*)"`)
)

func classifyTable(req *Request, method, rest string, body []byte) {
	if rest == "$batch" {
		req.Op = "table.batch"
		req.Key = partitionKey(rest, body)
		if req.Key == "" {
			if m := pkInPath.FindSubmatch(body); m != nil {
				req.Key = strings.ReplaceAll(string(m[1]), "''", "'")
			}
		}
		return
	}
	table, args, hasArgs := strings.Cut(rest, "(")
	if table == "" {
		return
	}
	if strings.EqualFold(table, "Tables") {
		if method == http.MethodPost {
			req.Op = "table.create"
		}
		return
	}
	decoded, _ := url.PathUnescape(args)
	req.Key = partitionKey(decoded, body)
	entity := hasArgs && strings.Contains(decoded, "RowKey")
	switch {
	case entity && method == http.MethodGet:
		req.Op = "table.get"
	case method == http.MethodGet:
		req.Op = "table.query"
	case entity && method == http.MethodPut:
		req.Op = "table.update"
	case entity && (method == "MERGE" || method == http.MethodPatch):
		req.Op = "table.merge"
	case entity && method == http.MethodDelete:
		req.Op = "table.delete"
	case method == http.MethodPost:
		req.Op = "table.insert"
	}
}

func partitionKey(path string, body []byte) string {
	if m := pkInPath.FindStringSubmatch(path); m != nil {
		return strings.ReplaceAll(m[1], "''", "'")
	}
	if m := pkInJSON.FindSubmatch(body); m != nil {
		return string(m[1])
	}
	return ""
}
