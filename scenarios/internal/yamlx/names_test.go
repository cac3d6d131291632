package yamlx

import (
	"testing"

	"go.yaml.in/yaml/v3"
)

func TestDescribe(t *testing.T) {
	for src, want := range map[string]string{
		"{a: 1}":        "a mapping",
		"[1, 2]":        "a list",
		"~":             "nothing (the value is empty)",
		"true":          "the boolean true",
		"12.5":          "12.5",
		"hello":         `"hello"`,
		"1e999999":      "1e999999, which is out of range",
		`"1e99999"`:     "1e99999, which is out of range",
		"!!binary aGk=": "a value tagged !!binary (aGk=)",
		"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa": `"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa..."`,
	} {
		var doc yaml.Node
		if err := yaml.Unmarshal([]byte(src), &doc); err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		if got := Describe(doc.Content[0]); got != want {
			t.Errorf("Describe(%s) = %q, want %q", src, got, want)
		}
	}
}

func TestDidYouMean(t *testing.T) {
	allowed := []string{"actors", "keys", "duration"}
	if got := DidYouMean("actrs", allowed); got != ` (did you mean "actors"?)` {
		t.Errorf("actrs: %q", got)
	}
	if got := DidYouMean("zzzzzz", allowed); got != "" {
		t.Errorf("zzzzzz: %q", got)
	}
}
