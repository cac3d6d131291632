package metricsexport

import (
	"context"
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"

	dto "github.com/prometheus/client_model/go"
)

// dashboardFile is the Grafana dashboard stormcheck ships.
const dashboardFile = "../../docs/grafana/stormcheck.json"

// queries returns every PromQL expression in a Grafana dashboard: panel
// targets and template variable queries.
func queries(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var dash struct {
		Panels []struct {
			Title   string
			Targets []struct{ Expr string }
		}
		Templating struct {
			List []struct {
				Type  string
				Query json.RawMessage
			}
		}
	}
	if err := json.Unmarshal(b, &dash); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	var out []string
	for _, p := range dash.Panels {
		if len(p.Targets) == 0 {
			t.Errorf("panel %q queries nothing", p.Title)
		}
		for _, tg := range p.Targets {
			out = append(out, tg.Expr)
		}
	}
	for _, v := range dash.Templating.List {
		if v.Type != "query" {
			continue
		}
		var q struct{ Query string }
		if err := json.Unmarshal(v.Query, &q); err != nil {
			t.Fatalf("template query %s: %v", v.Query, err)
		}
		out = append(out, q.Query)
	}
	return out
}

var (
	metricRef  = regexp.MustCompile(`\bstormcheck_[a-z_]+`)
	byClause   = regexp.MustCompile(`\b(?:by|without)\s*\(([^)]*)\)`)
	matcher    = regexp.MustCompile(`([a-zA-Z_][a-zA-Z0-9_]*)\s*(?:=~|!~|!=|=)\s*"`)
	labelValue = regexp.MustCompile(`label_values\([^,]*,\s*([a-zA-Z_]+)\s*\)`)
)

// TestDashboardQueriesWhatIsExported: every metric the dashboard queries
// is one the Prometheus endpoint serves (histogram series by their
// _bucket, _sum and _count), every label it groups or filters by is on
// that metric, and every exported metric is on the dashboard.
func TestDashboardQueriesWhatIsExported(t *testing.T) {
	p, err := NewPrometheus("127.0.0.1:0", "fixture")
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close(context.Background())
	p.Attach(recordFixture(t))
	fams := scrape(t, p.URL())
	labels := map[string]map[string]bool{} // family -> label names
	for name, f := range fams {
		labels[name] = map[string]bool{}
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				labels[name][l.GetName()] = true
			}
		}
		if f.GetType() == dto.MetricType_HISTOGRAM {
			labels[name]["le"] = true
		}
	}
	for _, n := range Names {
		if fams[n] == nil {
			t.Errorf("%s is not served", n)
		}
	}

	used := map[string]bool{}
	qs := queries(t, dashboardFile)
	if len(qs) < len(Names) {
		t.Fatalf("%d queries in %s", len(qs), dashboardFile)
	}
	for _, q := range qs {
		allowed := map[string]bool{}
		refs := metricRef.FindAllString(q, -1)
		if len(refs) == 0 {
			t.Errorf("query queries no stormcheck metric: %s", q)
		}
		for _, ref := range refs {
			fam := ref
			if fams[fam] == nil {
				for _, suffix := range []string{"_bucket", "_sum", "_count"} {
					if base := strings.TrimSuffix(ref, suffix); base != ref && fams[base].GetType() == dto.MetricType_HISTOGRAM {
						fam = base
					}
				}
			}
			if fams[fam] == nil {
				t.Errorf("the dashboard queries %s, which is not exported: %s", ref, q)
				continue
			}
			used[fam] = true
			for l := range labels[fam] {
				allowed[l] = true
			}
		}
		var names []string
		for _, m := range byClause.FindAllStringSubmatch(q, -1) {
			for _, l := range strings.Split(m[1], ",") {
				names = append(names, strings.TrimSpace(l))
			}
		}
		for _, m := range matcher.FindAllStringSubmatch(q, -1) {
			names = append(names, m[1])
		}
		for _, m := range labelValue.FindAllStringSubmatch(q, -1) {
			names = append(names, m[1])
		}
		for _, l := range names {
			if l != "" && !allowed[l] {
				t.Errorf("the dashboard uses label %q, which %v do not carry: %s", l, refs, q)
			}
		}
	}
	for _, n := range Names {
		if !used[n] {
			t.Errorf("%s is exported but not on the dashboard", n)
		}
	}
}
