package faults

import (
	"net/http"
	"strings"
	"testing"
)

func TestClassify(t *testing.T) {
	for _, c := range []struct {
		svc, method, path, body string
		want                    Request
	}{
		{"blob", "PUT", "/acct/c/k0", "", Request{"blob", "blob.put", "k0"}},
		{"blob", "GET", "/acct/c/k1", "", Request{"blob", "blob.get", "k1"}},
		{"blob", "PUT", "/acct/c/k2?comp=block&blockid=YQ==", "", Request{"blob", "blob.block", "k2"}},
		{"blob", "PUT", "/acct/c/k2?comp=blocklist", "", Request{"blob", "blob.commit", "k2"}},
		{"blob", "PUT", "/acct/c/k3?comp=lease", "", Request{"blob", "blob.lease", "k3"}},
		{"blob", "PUT", "/acct/c?restype=container&comp=lease", "", Request{"blob", "container.lease", ""}},
		{"blob", "PUT", "/acct/c?restype=container", "", Request{"blob", "container.create", ""}},
		{"blob", "PUT", "/acct/c?restype=container&comp=acl", "", Request{"blob", "container.setacl", ""}},
		{"table", "GET", "/acct/t(PartitionKey='p1',RowKey='r')", "", Request{"table", "table.get", "p1"}},
		{"table", "PUT", "/acct/t(PartitionKey='p1',RowKey='r')", "", Request{"table", "table.update", "p1"}},
		{"table", "MERGE", "/acct/t(PartitionKey='p''2',RowKey='r')", "", Request{"table", "table.merge", "p'2"}},
		{"table", "POST", "/acct/t", `{"PartitionKey":"p3","RowKey":"r"}`, Request{"table", "table.insert", "p3"}},
		{"table", "GET", "/acct/t()?$filter=x", "", Request{"table", "table.query", ""}},
		{"table", "POST", "/acct/$batch", "PUT http://h/acct/t(PartitionKey='p4',RowKey='r') HTTP/1.1", Request{"table", "table.batch", "p4"}},
		{"table", "POST", "/acct/Tables", `{"TableName":"t"}`, Request{"table", "table.create", ""}},
		{"queue", "POST", "/acct/q1/messages", "", Request{"queue", "queue.put", "q1"}},
		{"queue", "GET", "/acct/q1/messages?numofmessages=8", "", Request{"queue", "queue.get", "q1"}},
		{"queue", "GET", "/acct/q1/messages?peekonly=true", "", Request{"queue", "queue.peek", "q1"}},
		{"queue", "PUT", "/acct/q1/messages/abc?popreceipt=x", "", Request{"queue", "queue.update", "q1"}},
		{"queue", "DELETE", "/acct/q1/messages/abc?popreceipt=x", "", Request{"queue", "queue.delete", "q1"}},
	} {
		r, _ := http.NewRequest(c.method, "http://127.0.0.1"+c.path, strings.NewReader(c.body))
		if got := Classify(c.svc, r, []byte(c.body)); got != c.want {
			t.Errorf("%s %s: got %+v, want %+v", c.method, c.path, got, c.want)
		}
	}
}
