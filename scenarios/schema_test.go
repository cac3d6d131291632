package scenarios

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"go.yaml.in/yaml/v3"
)

// TestSchemaFieldsAreTheLoaders: every mapping of the schema names exactly
// the fields the loader accepts there, and every kind's params exactly the
// kind's; the schema cannot drift from the loader's tables.
func TestSchemaFieldsAreTheLoaders(t *testing.T) {
	sections, tables := schemaSections(), schemaFieldTables()
	if len(sections) != len(tables) {
		t.Errorf("%d schema sections, %d loader tables", len(sections), len(tables))
	}
	for name, fields := range tables {
		var got []string
		for f := range sections[name] {
			got = append(got, f)
		}
		want := slices.Clone(fields)
		sort.Strings(got)
		sort.Strings(want)
		if !slices.Equal(got, want) {
			t.Errorf("section %s: schema has %v, the loader accepts %v", name, got, want)
		}
	}
	var doc struct {
		Definitions map[string]struct {
			Properties map[string]json.RawMessage `json:"properties"`
			AllOf      []struct {
				If struct {
					Properties struct {
						Kind struct {
							Const string `json:"const"`
						} `json:"kind"`
					} `json:"properties"`
				} `json:"if"`
				Then struct {
					Properties struct {
						Params struct {
							Properties map[string]json.RawMessage `json:"properties"`
						} `json:"params"`
					} `json:"properties"`
				} `json:"then"`
			} `json:"allOf"`
		} `json:"definitions"`
	}
	b, err := Schema()
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, c := range doc.Definitions["workload"].AllOf {
		kind := c.If.Properties.Kind.Const
		seen[kind] = true
		var got []string
		for p := range c.Then.Properties.Params.Properties {
			got = append(got, p)
		}
		want := slices.Clone(Kinds[kind].Params)
		sort.Strings(got)
		sort.Strings(want)
		if !slices.Equal(got, want) {
			t.Errorf("kind %s: schema params %v, the loader's %v", kind, got, want)
		}
	}
	if len(seen) != len(Kinds) {
		t.Errorf("schema covers %d kinds of %d", len(seen), len(Kinds))
	}
}

// TestSchemaFileIsCurrent: the schema kept in the repository is what
// Schema makes today.
func TestSchemaFileIsCurrent(t *testing.T) {
	kept, err := os.ReadFile(filepath.Join("examples", SchemaFile))
	if err != nil {
		t.Fatal(err)
	}
	b, err := Schema()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(kept, b) {
		t.Errorf("scenarios/examples/%s is stale: run go generate ./scenarios/ (or stormcheck schema --out scenarios/examples/%s)", SchemaFile, SchemaFile)
	}
}

func compileSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	b, err := Schema()
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(SchemaURL, doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile(SchemaURL)
	if err != nil {
		t.Fatalf("the schema does not compile: %v", err)
	}
	return s
}

// asJSON reads a YAML file as the JSON value an editor checks.
func asJSON(t *testing.T, path string) any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := yaml.Unmarshal(data, &v); err != nil {
		return nil
	}
	j, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(j))
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// TestSchemaJudgesLikeTheLoader: every shipped scenario (valid for the
// loader) is valid for the schema and names it on its first line; the
// invalid scenarios whose mistake a schema can express (an unknown field, a
// wrong type, a value out of range, an unknown kind) are refused by it.
func TestSchemaJudgesLikeTheLoader(t *testing.T) {
	s := compileSchema(t)
	shipped, _ := filepath.Glob("examples/*.yaml")
	if len(shipped) < 10 {
		t.Fatalf("%d shipped scenarios", len(shipped))
	}
	for _, f := range shipped {
		data, _ := os.ReadFile(f)
		if !strings.HasPrefix(string(data), SchemaLine+"\n") {
			t.Errorf("%s: first line is not %q", f, SchemaLine)
		}
		if err := s.Validate(asJSON(t, f)); err != nil {
			t.Errorf("%s: valid for the loader, not for the schema: %v", f, err)
		}
	}
	refused := []string{
		"actors-list", "actors-negative", "actors-overflow", "actors-wrong-type", "batch-size-too-large", "check-unknown",
		"duration-bad-unit", "duration-no-unit", "executor-unknown", "fault-fraction-too-big", "fault-kind-unknown",
		"fault-op-unknown", "fault-service-unknown", "fault-unknown-field", "iterations-zero", "key-pattern-unknown",
		"kind-missing", "kind-unknown", "lease-10s", "lease-90s", "lease-bare-number", "messages-per-get-too-many",
		"name-missing", "param-not-for-kind", "payload-too-big", "queue-payload-too-large", "rate-negative", "rate-too-high",
		"retry-max-attempts", "retry-on-unknown", "seed-fraction", "target-kind-unknown", "unknown-top-field",
		"unknown-workload-field", "workload-field-at-top", "workload-name-double-hyphen", "workload-name-invalid", "workloads-not-list",
	}
	for _, name := range refused {
		f := filepath.Join("testdata", "invalid", name+".yaml")
		if _, err := Load(f); err == nil {
			t.Errorf("%s: the loader accepts it", f)
		}
		if err := s.Validate(asJSON(t, f)); err == nil {
			t.Errorf("%s: invalid for the loader, valid for the schema", f)
		}
	}
}
