package runner

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/stormcheck/stormcheck/runner/conform"
	"github.com/stormcheck/stormcheck/runner/connstr"
	"github.com/stormcheck/stormcheck/runner/target"
	"github.com/stormcheck/stormcheck/scenarios"
	"github.com/stormcheck/stormcheck/scenarios/conformance"
)

// wireRecorder passes every request on to the real target and keeps what
// went out: method, path, query, headers and body.
type wireRecorder struct {
	mu   sync.Mutex
	next http.RoundTripper
	reqs []string
}

// volatile are the headers that change from one sending of the same step
// to the next (time, signature, ids).
var volatile = []string{"Authorization", "X-Ms-Date", "Date", "X-Ms-Client-Request-Id", "Traceparent", "User-Agent",
	"Dataserviceversion", "Content-Md5"}

func (w *wireRecorder) RoundTrip(req *http.Request) (*http.Response, error) {
	var body []byte
	if req.Body != nil && req.GetBody != nil {
		if rc, err := req.GetBody(); err == nil {
			body, _ = io.ReadAll(rc)
			_ = rc.Close()
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s?%s\n", req.Method, req.URL.Path, req.URL.Query().Encode())
	names := make([]string, 0, len(req.Header))
	for n := range req.Header {
		if !slices.Contains(volatile, http.CanonicalHeaderKey(n)) {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(&b, "%s: %s\n", http.CanonicalHeaderKey(n), strings.Join(req.Header[n], ","))
	}
	b.Write(body)
	// Multipart boundaries (Table batches) are random per request.
	s := multipartBoundary.ReplaceAllString(b.String(), "${1}_BOUNDARY")
	w.mu.Lock()
	w.reqs = append(w.reqs, s)
	w.mu.Unlock()
	return w.next.RoundTrip(req)
}

// multipartBoundary matches the random boundaries of a Table batch.
var multipartBoundary = regexp.MustCompile(`(batch|changeset)_[0-9a-f-]{36}`)

// noise lists the lines (by number) where two sendings of the same step
// differ: values the SDK draws at random (a lease client's lease id when
// the step names none); nil when they differ in their number of lines.
func noise(a, b string) map[int]bool {
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	if len(la) != len(lb) {
		return nil
	}
	out := map[int]bool{}
	for i := range la {
		if la[i] != lb[i] {
			out[i] = true
		}
	}
	return out
}

// masked is s with the lines of noise blanked (when s has as many lines
// as the sendings noise came from).
func masked(s string, noise map[int]bool, lines int) string {
	ls := strings.Split(s, "\n")
	if len(ls) != lines {
		return s
	}
	for i := range noise {
		ls[i] = "(random)"
	}
	return strings.Join(ls, "\n")
}

// take returns and forgets the requests recorded so far.
func (w *wireRecorder) take() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	s := strings.Join(w.reqs, "\n---\n")
	w.reqs = nil
	return s
}

// wireSample is a value of a step field, and another (for a field every
// step of the op carries), written as YAML flow values.
type wireSample struct{ a, b string }

// wireSamples holds a value for every step field that names what a request
// sends; the fields themselves come from conformance.Ops, so a field the
// loader accepts that has no sample here fails the test.
var wireSamples = map[string]wireSample{
	"blob": {"b1", "b2"}, "container": {"c1", "c2"}, "source": {"s1", "s2"},
	"body": {`"hello"`, `"world"`}, "metadata": {"{k: v}", "{k: w}"},
	"table": {"t1", "t2"}, "partition": {"p1", "p2"}, "row": {"r1", "r2"}, "properties": {"{A: x}", "{A: y}"},
	"actions": {`[{kind: insert, row: r, properties: {v: "1"}}]`, `[{kind: upsert, row: r, properties: {v: "1"}}]`},
	"queue":   {"q1", "q2"}, "text": {"m1", "m2"}, "count": {"2", "3"}, "num_messages": {"3", "4"}, "visibility": {"5", "6"},
	"message_id": {"id1", "id2"}, "pop_receipt": {"pr1", "pr2"},
	"if_match": {`'"0x1"'`, `'"0x2"'`}, "if_none_match": {`'"0x1"'`, `'"0x2"'`},
	"if_modified_since":   {`"raw:Mon, 01 Jan 2024 00:00:00 GMT"`, `"raw:Tue, 02 Jan 2024 00:00:00 GMT"`},
	"if_unmodified_since": {`"raw:Mon, 01 Jan 2024 00:00:00 GMT"`, `"raw:Tue, 02 Jan 2024 00:00:00 GMT"`},
	"source_if_match":     {`'"0x1"'`, `'"0x2"'`}, "source_if_none_match": {`'"0x1"'`, `'"0x2"'`},
	"source_if_modified_since":   {`"raw:Mon, 01 Jan 2024 00:00:00 GMT"`, `"raw:Tue, 02 Jan 2024 00:00:00 GMT"`},
	"source_if_unmodified_since": {`"raw:Mon, 01 Jan 2024 00:00:00 GMT"`, `"raw:Tue, 02 Jan 2024 00:00:00 GMT"`},
	"lease_id":                   {"11111111-1111-4111-8111-111111111111", "22222222-2222-4222-8222-222222222222"},
	"proposed_lease_id":          {"11111111-1111-4111-8111-111111111111", "22222222-2222-4222-8222-222222222222"},
	"source_lease_id":            {"11111111-1111-4111-8111-111111111111", "22222222-2222-4222-8222-222222222222"},
	"duration":                   {"15", "20"}, "break_period": {"5", "6"}, "block_id": {"k1", "k2"}, "blocks": {"[k1]", "[k2]"},
	"copy_id": {"33333333-3333-4333-8333-333333333333", "44444444-4444-4444-8444-444444444444"},
	"if_tags": {`"\"k\" = 'v'"`, `"\"k\" = 'w'"`}, "source_if_tags": {`"\"k\" = 'v'"`, `"\"k\" = 'w'"`},
	"blob_tags": {`"k=v"`, `"k=w"`}, "delete_snapshots": {"include", "only"}, "ttl": {"60", "61"}, "text_repeat": {"2", "3"},
	"append_pos": {"0", "1"}, "max_size": {"100", "101"}, "body_bytes": {"10", "11"},
	"size": {"1024", "2048"}, "offset": {"0", "512"}, "length": {"1024", "2048"}, "sequence_number": {"3", "4"},
	"sequence_number_action": {"update", "max"},
	"if_sequence_number_le":  {"1", "2"}, "if_sequence_number_lt": {"1", "2"}, "if_sequence_number_eq": {"1", "2"},
	"prev_snapshot": {`"2020-01-01T00:00:00.0000000Z"`, `"2021-01-01T00:00:00.0000000Z"`},
	"snapshot":      {`"2020-01-01T00:00:00.0000000Z"`, `"2021-01-01T00:00:00.0000000Z"`},
	"request":       {"{method: GET}", "{method: HEAD}"},
}

// notSent are the step fields that say how to judge or name a step, not
// what it sends.
var notSent = []string{"expect", "capture", "evidence"}

// TestEveryStepFieldReachesTheWire sends, for every op and every field the
// loader accepts for it, the op without the field (or with another value
// when every step must carry it) and with it, through a recorder in front
// of a real Azurite, and fails when the two requests are the same: a field
// the loader takes and the executor drops (as it once dropped metadata on
// Put Blob, Put Block List, Snapshot Blob, Copy Blob and Create Container)
// would make a rule check nothing while looking as if it did. The same
// step sent twice must give the same request, so a difference is the
// field's.
func TestEveryStepFieldReachesTheWire(t *testing.T) {
	ctx := context.Background()
	rec := &wireRecorder{next: target.NewHTTPClient(8).Transport}
	tgt, err := target.Open(ctx, scenarios.Target{Kind: scenarios.TargetAzurite, AzuriteVersion: scenarios.DefaultAzuriteVersion},
		target.Options{WorkDir: t.TempDir(), HTTPClient: &http.Client{Transport: rec}, Uses: connstr.Of(connstr.Blob, connstr.Table, connstr.Queue)})
	if err != nil {
		t.Fatal(err)
	}
	defer tgt.Close()
	ops := make([]string, 0, len(conformance.Ops))
	for op := range conformance.Ops {
		ops = append(ops, op)
	}
	sort.Strings(ops)
	send := func(op string, fields map[string]string) string {
		var b strings.Builder
		fmt.Fprintf(&b, "rules:\n  - id: t.wire\n    title: T\n    source: \"REST: test\"\n    tags: [blob]\n    steps:\n      - op: %s\n", op)
		names := make([]string, 0, len(fields))
		for f := range fields {
			names = append(names, f)
		}
		sort.Strings(names)
		for _, f := range names {
			fmt.Fprintf(&b, "        %s: %s\n", f, fields[f])
		}
		b.WriteString("        expect: {status: [200, 201, 202, 204, 206, 304, 400, 403, 404, 409, 412, 416]}\n")
		rules, err := conformance.Parse("wire.yaml", []byte(b.String()))
		if err != nil {
			t.Fatalf("%s %v: %v", op, fields, err)
		}
		rr := &conform.RuleRun{T: tgt, Prefix: "scwire-r0", Vars: map[string]string{}, LastETag: map[string]string{}}
		rec.take()
		obs, _, _ := rr.Do(ctx, &rules[0].Steps[0])
		sent := rec.take()
		if sent == "" {
			t.Errorf("%s %v: nothing reached the wire (%s)", op, fields, obs.Err)
		}
		return sent
	}
	checked := 0
	for _, op := range ops {
		spec := conformance.Ops[op]
		if op == "wait" || strings.HasPrefix(op, "file.") { // no request; Azurite has no file service
			continue
		}
		base := map[string]string{}
		for _, f := range spec.Required {
			base[f] = wireSamples[f].a
		}
		// The same step sent twice gives the same request but for values
		// the SDK draws at random; a field reaches the wire when the
		// request with it differs elsewhere, or when it fixes such a
		// value (the same twice).
		first, again := send(op, base), send(op, base)
		rnd := noise(first, again)
		if rnd == nil {
			t.Errorf("%s: the same step sent twice differs in shape:\n%s\n-----\n%s", op, first, again)
			continue
		}
		lines := strings.Count(first, "\n") + 1
		for _, f := range spec.Fields {
			if slices.Contains(notSent, f) {
				continue
			}
			s, ok := wireSamples[f]
			if !ok {
				t.Errorf("%s takes field %s, which has no sample value here: add one", op, f)
				continue
			}
			with := map[string]string{}
			for k, v := range base {
				with[k] = v
			}
			if _, required := base[f]; required {
				with[f] = s.b
			} else {
				with[f] = s.a
			}
			got := send(op, with)
			if masked(got, rnd, lines) == masked(first, rnd, lines) && (len(rnd) == 0 || send(op, with) != got) {
				t.Errorf("%s: field %s (%s) does not reach the wire: the request is the same with and without it:\n%s", op, f, with[f], got)
			}
			checked++
		}
	}
	t.Logf("%d op fields checked on the wire", checked)
}
