package scenarios

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"
)

// paramScenario is a minimal scenario with one workload of kind, with the
// params given as YAML flow text ("" for none).
func paramScenario(kind, params string) string {
	s := "name: t\nduration: 1s\nworkloads:\n  - name: w\n    kind: " + kind + "\n    actors: 4\n"
	if params != "" {
		s += "    params: {" + params + "}\n"
	}
	return s
}

// paramField reads the Params field of the param name (payload_bytes is
// PayloadBytes).
func paramField(p Params, name string) any {
	var b strings.Builder
	for _, part := range strings.Split(name, "_") {
		b.WriteString(strings.ToUpper(part[:1]) + part[1:])
	}
	f := reflect.ValueOf(p).FieldByName(b.String())
	if !f.IsValid() {
		return nil
	}
	return f.Interface()
}

// TestParamSpecsMatchTheLoader: for every kind and every param it takes,
// the loader accepts each bound the table states, refuses the values just
// outside, and gives a workload without the param the table's default.
func TestParamSpecsMatchTheLoader(t *testing.T) {
	if len(paramSpecs) != len(paramNames) {
		t.Errorf("%d param specs for %d params", len(paramSpecs), len(paramNames))
	}
	for _, kind := range KindNames() {
		for _, name := range Kinds[kind].Params {
			p := ParamSpecOf(name)
			if p.Name == "" {
				t.Errorf("param %s (kind %s) has no spec", name, kind)
				continue
			}
			try := func(value string, ok bool) {
				t.Helper()
				_, err := Parse("t.yaml", []byte(paramScenario(kind, name+": "+value)))
				if ok && err != nil {
					t.Errorf("%s %s: %s: the table allows it, the loader says %v", kind, name, value, err)
				}
				if !ok && err == nil {
					t.Errorf("%s %s: %s: the table refuses it, the loader accepts it", kind, name, value)
				}
			}
			switch p.Type {
			case ParamInteger:
				lo, hi := int64(p.Min), int64(p.MaxFor(kind))
				try(fmt.Sprint(lo), true)
				try(fmt.Sprint(lo-1), false)
				try(fmt.Sprint(hi), true)
				try(fmt.Sprint(hi+1), false)
			case ParamNumber:
				if p.ExclusiveMin {
					try(num(p.Min), false)
					try(num(p.Min+0.01), true)
				} else {
					try(num(p.Min), true)
					try(num(p.Min-0.01), false)
				}
				try(num(p.Max), true)
				try(num(p.Max+0.01), false)
			case ParamDuration, ParamLease:
				try(p.MinDuration.String(), true)
				try((p.MinDuration - time.Second).String(), false)
				if !p.NoMax {
					try(p.MaxDuration.String(), true)
					try((p.MaxDuration + time.Second).String(), false)
				}
				if p.WholeSeconds {
					try((p.MinDuration + 500*time.Millisecond).String(), false)
				}
				if p.Type == ParamLease {
					try("infinite", true)
				}
			case ParamEnum:
				for _, v := range p.Enum {
					try(v, true)
				}
				try("no-such-value", false)
			default:
				t.Errorf("param %s: unknown type %q", name, p.Type)
			}

			sc, err := Parse("t.yaml", []byte(paramScenario(kind, "")))
			if err != nil {
				t.Fatalf("%s without params: %v", kind, err)
			}
			got := paramField(sc.Workloads[0].Params, name)
			want := p.Default
			switch name {
			case "rows":
				if kind == "table.batch" {
					want = 20 // max(20, batch_size 10)
				}
			case "producers":
				want = 2 // half of 4 actors
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s %s: the loader's default is %v (%T), the table says %v (%T)", kind, name, got, got, want, want)
			}
		}
	}
}
