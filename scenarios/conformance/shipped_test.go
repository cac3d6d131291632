package conformance

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The embedded rules are exactly the rule files of this directory.
func TestShippedIsTheDirectory(t *testing.T) {
	emb, err := Shipped()
	if err != nil {
		t.Fatal(err)
	}
	dir, err := LoadDir("rules")
	if err != nil {
		t.Fatal(err)
	}
	if len(emb.Rules) != len(dir.Rules) || len(emb.Rules) < 100 {
		t.Fatalf("%d embedded rules, %d in the directory", len(emb.Rules), len(dir.Rules))
	}
	for i := range emb.Rules {
		if emb.Rules[i].ID != dir.Rules[i].ID || !strings.HasPrefix(emb.Rules[i].File, ShippedLabel+string(filepath.Separator)) {
			t.Fatalf("rule %d: embedded %s (%s), directory %s", i, emb.Rules[i].ID, emb.Rules[i].File, dir.Rules[i].ID)
		}
	}
	names := ShippedBaselines()
	if !slices.Contains(names, "azurite-3.37.0") {
		t.Fatalf("shipped baselines %v", names)
	}
	data, ok := ShippedBaseline("azurite-3.37.0")
	disk, err := os.ReadFile(filepath.Join("baselines", "azurite-3.37.0.json"))
	if !ok || err != nil || string(data) != string(disk) || !json.Valid(data) {
		t.Errorf("embedded baseline differs from baselines/azurite-3.37.0.json (ok %v, err %v)", ok, err)
	}
	if _, ok := ShippedBaseline("../x"); ok {
		t.Error("a name outside the list is found")
	}
}

func TestOverlayAddsAndReplaces(t *testing.T) {
	base := &RuleSet{Rules: []Rule{{ID: "a", Title: "A"}, {ID: "b", Title: "B"}}}
	user := &RuleSet{Rules: []Rule{{ID: "c", Title: "C"}, {ID: "a", Title: "mine"}}}
	replaced := base.Overlay(user)
	var got []string
	for _, r := range base.Rules {
		got = append(got, r.ID+"="+r.Title)
	}
	if strings.Join(got, " ") != "a=mine b=B c=C" || !slices.Equal(replaced, []string{"a"}) {
		t.Errorf("overlay: %v, replaced %v", got, replaced)
	}
}

func TestLoadDirNotADirectory(t *testing.T) {
	f := filepath.Join(t.TempDir(), "rules.yaml")
	if err := os.WriteFile(f, []byte("rules: []\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadDir(f); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("a file as --rules: %v", err)
	}
	if _, err := LoadDir(filepath.Join(t.TempDir(), "none")); err == nil || !strings.Contains(err.Error(), "none") {
		t.Errorf("a missing directory: %v", err)
	}
	if _, err := LoadDir(t.TempDir()); err == nil || !strings.Contains(err.Error(), "no *.yaml rule files") {
		t.Errorf("an empty directory: %v", err)
	}
}
