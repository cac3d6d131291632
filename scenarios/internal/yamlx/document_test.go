package yamlx

import (
	"fmt"
	"strings"
	"testing"
)

// TestSyntaxErrorFoundWithFewParses: a tab on the last line of a file of
// 1 KiB to 256 KiB is placed on its line with a bounded number of parses,
// whatever the file's length (the old loader bisected over the whole file: 23 parses of
// 5 million lines).
func TestSyntaxErrorFoundWithFewParses(t *testing.T) {
	for _, size := range []int{1 << 10, 16 << 10, 256 << 10} {
		var b strings.Builder
		b.WriteString("items:\n")
		lines := 1
		for b.Len() < size {
			b.WriteString("  - x\n")
			lines++
		}
		b.WriteString("\t- oops\n")
		_, err, passes := parseDocument("f.yaml", []byte(b.String()))
		if err == nil || err.Line != lines+1 || !strings.Contains(err.Msg, "tab") {
			t.Fatalf("%d bytes: want line %d, got %v", size, lines+1, err)
		}
		if passes > 6 {
			t.Errorf("%d bytes: parsed %d times; at most 6 whatever the size", size, passes)
		}
	}
}

func TestSyntaxErrorLines(t *testing.T) {
	for _, tc := range []struct {
		src       string
		line, col int
		msg       string
	}{
		{"a:\n  b: 1\n c: 2\n", 3, 2, "did not find expected key"},
		{"a: [1, 2\nb: 3\n", 1, 4, "the list opened with [ here is not closed"},
		{"a: {x: 1\n\n\nb: 3\n", 1, 4, "the mapping opened with { here is not closed"},
		{"a: 1\nb: 'open\nc: 2\n", 2, 4, "never closed"},
		{"a: 1\n# c\n# c\nb:\n\tc: 2\n", 5, 1, "tab"},
		{"a: 1\nb: *nope\n", 2, 4, "alias *nope names no anchor"},
		{"rules:\n  - id: [\n", 2, 3, "did not find expected node content"},
		{"a: b: c\n", 1, 5, "mapping values are not allowed"},
		{"a: `x`\n", 1, 4, "cannot start any token"},
	} {
		_, err := ParseDocument("f.yaml", []byte(tc.src))
		if err == nil || err.Line != tc.line || err.Col != tc.col || !strings.Contains(err.Msg, tc.msg) {
			t.Errorf("%q: want line %d col %d with %q, got %v", tc.src, tc.line, tc.col, tc.msg, err)
		}
	}
}

func TestOneDocumentOnly(t *testing.T) {
	_, err := ParseDocument("f.yaml", []byte("a: 1\n---\nb: 2\n"))
	if err == nil || err.Line != 2 || err.Col != 1 || !strings.Contains(err.Msg, "a second YAML document starts here") {
		t.Fatalf("got %v", err)
	}
	if root, err := ParseDocument("f.yaml", []byte("# only a comment\n")); root != nil || err != nil {
		t.Fatalf("empty: got %v, %v", root, err)
	}
}

func TestSizeAndEncodingBounds(t *testing.T) {
	if _, err := ParseDocument("f.yaml", make([]byte, MaxFileBytes+1)); err == nil || !strings.Contains(err.Msg, "at most 1048576 bytes") {
		t.Errorf("too large: got %v", err)
	}
	if _, err := ParseDocument("f.yaml", []byte("a: 1\nb: \xff\n")); err == nil || err.Line != 2 || err.Col != 4 {
		t.Errorf("not UTF-8: got %v", err)
	}
}

func TestAliasesBounded(t *testing.T) {
	var b strings.Builder
	b.WriteString("l0: &l0 [x]\n")
	for i := 1; i <= 12; i++ {
		fmt.Fprintf(&b, "l%d: &l%d [%s]\n", i, i, strings.TrimSuffix(strings.Repeat(fmt.Sprintf("*l%d,", i-1), 4), ","))
	}
	_, err := ParseDocument("f.yaml", []byte(b.String()))
	if err == nil || err.Line < 8 || err.Col == 0 || !strings.Contains(err.Msg, "aliases expand this file beyond 100000 nodes") {
		t.Fatalf("got %v", err)
	}
	// Merges taking their own mapping, and aliases inside what they name.
	for src, want := range map[string]string{
		"a: &m {x: 1, <<: *m}\n":   "a merge (<<) cannot take the mapping it is part of",
		"a: &m {x: 1, <<: [*m]}\n": "a merge (<<) cannot take the mapping it is part of",
		"a: &s [1, [2, *s]]\n":     "alias *s is inside the value &s it names",
	} {
		if _, err := ParseDocument("f.yaml", []byte(src)); err == nil || !strings.Contains(err.Msg, want) {
			t.Errorf("%q: got %v", src, err)
		}
	}
	// Aliases used as intended load.
	if _, err := ParseDocument("f.yaml", []byte("base: &b {x: 1}\nuse: {<<: *b, y: 2}\nagain: *b\n")); err != nil {
		t.Errorf("ordinary aliases: %v", err)
	}
}
