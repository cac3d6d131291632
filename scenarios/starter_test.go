package scenarios

import (
	"strings"
	"testing"
)

// TestStarterValidates: the starter scenario of every kind loads as written
// and holds the kind's params at their defaults.
func TestStarterValidates(t *testing.T) {
	for _, kind := range KindNames() {
		src, err := Starter(kind, "")
		if err != nil {
			t.Fatal(err)
		}
		sc, err := Parse(kind+".yaml", src)
		if err != nil {
			t.Errorf("starter of %s does not validate: %v\n%s", kind, err, src)
			continue
		}
		if len(sc.Workloads) != 1 || sc.Workloads[0].Kind != kind {
			t.Errorf("starter of %s: workloads %+v", kind, sc.Workloads)
		}
		if !strings.HasPrefix(string(src), "# yaml-language-server: $schema="+SchemaRef+"\n") {
			t.Errorf("starter of %s lacks the schema line", kind)
		}
		for _, p := range Kinds[kind].Params {
			if !strings.Contains(string(src), p+":") {
				t.Errorf("starter of %s lacks param %s", kind, p)
			}
		}
	}
	if _, err := Starter("blob.etag-countr", ""); err == nil || !strings.Contains(err.Error(), "nearest: blob.etag-counter") {
		t.Errorf("unknown kind: %v", err)
	}
}
