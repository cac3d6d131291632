package conformance

import (
	"strings"
	"testing"
)

// The append blob fields decode into the step, and a value they do not
// take is an error naming the field and what it takes.
func TestAppendFields(t *testing.T) {
	rule := func(step string) string {
		return "rules:\n  - id: a\n    title: t\n    source: s\n    tags: [blob]\n    steps:\n      - " + step + "\n"
	}
	rs, err := Parse("f.yaml", []byte(rule("{op: blob.append, blob: a, body_bytes: 4194305, append_pos: -1, max_size: 12, expect: {status: 201}}")))
	if err != nil {
		t.Fatal(err)
	}
	st := rs[0].Steps[0]
	if st.BodyBytes != 4194305 || st.AppendPos == nil || *st.AppendPos != -1 || st.MaxSize == nil || *st.MaxSize != 12 {
		t.Errorf("step: body_bytes %d, append_pos %v, max_size %v", st.BodyBytes, st.AppendPos, st.MaxSize)
	}
	for step, want := range map[string]string{
		"{op: blob.append, blob: a, body_bytes: 0, expect: {status: 201}}":        "rules[0].steps[0].body_bytes: must be a whole number of bytes, 1..104857601",
		"{op: blob.append, blob: a, append_pos: x, expect: {status: 201}}":        "rules[0].steps[0].append_pos: must be a whole number of bytes",
		"{op: blob.append, blob: a, max_size: 1.5, expect: {status: 201}}":        "rules[0].steps[0].max_size: must be a whole number of bytes",
		"{op: blob.append.seal, blob: a, max_size: 3, expect: {status: 200}}":     `op blob.append.seal does not take "max_size"`,
		"{op: blob.put, blob: a, append_pos: 3, expect: {status: 201}}":           `op blob.put does not take "append_pos"`,
		"{op: blob.append.create, blob: a, body_bytes: 3, expect: {status: 201}}": `op blob.append.create does not take "body_bytes"`,
	} {
		_, err := Parse("f.yaml", []byte(rule(step)))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want %q", step, err, want)
		}
	}
}
