package conformance

import (
	"errors"
	"strings"
	"testing"
)

const coveredRule = `
rules:
  - id: t.cov
    title: T
    source: S
    tags: [blob]
    covers: ["blob.put if-match=false", "blob.put error=ConditionNotMet", "blob.put state=exists"]
    steps:
      - {op: blob.put, blob: b, body: "1", expect: {status: 201}}
      - {op: blob.put, blob: b, body: "2", if_match: '"0x1"', expect: {status: 412, error_code: ConditionNotMet}}
`

func TestCoverageFromCovers(t *testing.T) {
	rules, err := Parse("c.yaml", []byte(coveredRule))
	if err != nil {
		t.Fatal(err)
	}
	cov := Coverage(rules)
	var put OpCoverage
	for _, oc := range cov {
		if oc.Ref.Op == "blob.put" {
			put = oc
		}
	}
	c, total := put.Covered()
	if c != 3 || total < 20 {
		t.Fatalf("blob.put: %d of %d covered", c, total)
	}
	holes := strings.Join(put.Holes(), " ")
	if strings.Contains(holes, "if-match=false") || !strings.Contains(holes, "if-match=true") || !strings.Contains(holes, "state=missing") {
		t.Errorf("holes: %s", holes)
	}
	var b strings.Builder
	if err := WriteCoverage(&b, cov); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"Put Blob (blob.put)  3/", "if-match                         -true +false -star", "error", "+ConditionNotMet", "3 of "} {
		if !strings.Contains(out, want) {
			t.Errorf("coverage output lacks %q:\n%s", want, out)
		}
	}
}

func TestCoversRefused(t *testing.T) {
	for _, tc := range []struct{ cover, want string }{
		{"blob.put", `must be "OP DIMENSION=VALUE"`},
		{"blob.nope if-match=false", `op "blob.nope" has no checklist`},
		{"blob.get if-match=false", "has no blob.get step"},
		{"blob.put if-macth=false", `did you mean "if-match"`},
		{"blob.put if-none-match=false", "no blob.put step sends if-none-match"},
		{"blob.put if-match=maybe", `"maybe" is not in the checklist`},
		{"blob.put state=asleep", "allowed: exists, missing"},
		{"blob.put error=ConditionNotMet\", \"blob.put error=ConditionNotMet", "listed twice"},
	} {
		src := strings.Replace(coveredRule, `["blob.put if-match=false", "blob.put error=ConditionNotMet", "blob.put state=exists"]`, `["`+tc.cover+`"]`, 1)
		_, err := Parse("c.yaml", []byte(src))
		var list ErrorList
		if !errors.As(err, &list) || len(list) != 1 || !strings.Contains(list[0].Error(), tc.want) || !strings.Contains(list[0].Error(), "c.yaml:7:") {
			t.Errorf("%s: want one error at c.yaml:7 saying %q, got %v", tc.cover, tc.want, err)
		}
	}
}

// Every checklist names a step op, a field that op takes, and no point
// twice.
func TestReferenceConsistent(t *testing.T) {
	seen := map[string]bool{}
	for _, r := range Reference {
		spec, ok := Ops[r.Op]
		if !ok || seen[r.Op] || r.Name == "" || !strings.HasPrefix(r.Page, "https://learn.microsoft.com/") {
			t.Errorf("%s: op known %v, listed twice %v, name %q, page %q", r.Op, ok, seen[r.Op], r.Name, r.Page)
		}
		seen[r.Op] = true
		dims := map[string]bool{}
		for _, p := range r.Params {
			if dims[p.Name] && p.Name != "if-match" || len(p.Classes) == 0 {
				t.Errorf("%s %s: repeated or without classes", r.Op, p.Name)
			}
			dims[p.Name] = true
			took := p.Field == "" // a parameter the runner cannot send yet: a hole on purpose
			for _, f := range spec.Fields {
				took = took || f == p.Field
			}
			if !took {
				t.Errorf("%s %s: op does not take field %s", r.Op, p.Name, p.Field)
			}
		}
	}
}

// The value forms the reference rules need: ETag lists, raw dates and
// snapshots.
func TestReferenceValueForms(t *testing.T) {
	src := `
rules:
  - id: t.forms
    title: T
    source: S
    tags: [blob]
    steps:
      - {op: blob.put, blob: b, body: "1", capture: {etag: e1}, expect: {status: 201}}
      - {op: blob.snapshot, blob: b, capture: {snapshot: s1}, expect: {status: 201}}
      - {op: blob.get, blob: b, snapshot: $s1, if_match: ['"x"', $e1], if_modified_since: "raw:yesterday", expect: {status: 200}}
`
	rules, err := Parse("f.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	st := rules[0].Steps[2]
	if st.Snapshot == nil || st.Snapshot.Ref != "s1" || len(st.IfMatch.List) != 2 || st.IfMatch.List[0].Literal != `"x"` ||
		st.IfMatch.List[1].Ref != "e1" || st.IfModifiedSince.Literal != "yesterday" {
		t.Errorf("forms: %+v %+v %+v", st.Snapshot, st.IfMatch, st.IfModifiedSince)
	}
	for _, tc := range []struct{ from, to, want string }{
		{`if_match: ['"x"', $e1]`, `if_match: ['"x"']`, "needs at least two"},
		{`snapshot: $s1`, `snapshot: $e1`, "holds a etag"},
		{`if_modified_since: "raw:yesterday"`, `if_modified_since: "yesterday"`, "raw:TEXT"},
		{`{op: blob.get, blob: b, snapshot: $s1,`, `{op: blob.stage, block_id: x, blob: b, snapshot: $s1,`, `does not take "snapshot"`},
	} {
		_, err := Parse("f.yaml", []byte(strings.Replace(src, tc.from, tc.to, 1)))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: want an error saying %q, got %v", tc.to, tc.want, err)
		}
	}
}

// A parameter the runner cannot send (no step field) is a hole no rule may
// claim to cover.
func TestUnsendableParameterIsAHole(t *testing.T) {
	saved := Reference
	defer func() { Reference = saved }()
	Reference = append([]OpRef(nil), saved...)
	for i := range Reference {
		if Reference[i].Op == "blob.put" {
			Reference[i].Params = append(append([]ParamRef(nil), Reference[i].Params...), ParamRef{Name: "x-ms-future", Classes: []string{ClassTrue}})
		}
	}
	src := strings.Replace(coveredRule, `"blob.put state=exists"]`, `"blob.put state=exists", "blob.put x-ms-future=true"]`, 1)
	_, err := Parse("c.yaml", []byte(src))
	if err == nil || !strings.Contains(err.Error(), "only a raw step whose request is Put Blob can cover it") {
		t.Fatalf("want the unsendable parameter refused, got %v", err)
	}
	rules, err := Parse("c.yaml", []byte(coveredRule))
	if err != nil {
		t.Fatal(err)
	}
	for _, oc := range Coverage(rules) {
		if oc.Ref.Op == "blob.put" && !strings.Contains(strings.Join(oc.Holes(), " "), "x-ms-future=true") {
			t.Errorf("the unsendable parameter is not a hole: %v", oc.Holes())
		}
	}
}
