package reports_test

import (
	"slices"
	"testing"
	"time"

	"github.com/stormcheck/stormcheck/reports"
)

func TestNaturalLess(t *testing.T) {
	got := []string{"k10", "k2", "k0-r10", "k0-r9", "k1", "p007", "p7", "a", "", "k0-r100", "(other units)", "k0-r1x", "k0-r1"}
	slices.SortFunc(got, func(a, b string) int {
		if reports.NaturalLess(a, b) {
			return -1
		}
		if reports.NaturalLess(b, a) {
			return 1
		}
		return 0
	})
	want := []string{"", "(other units)", "a", "k0-r1", "k0-r1x", "k0-r9", "k0-r10", "k0-r100", "k1", "k2", "k10", "p7", "p007"}
	if !slices.Equal(got, want) {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

// Units of equal peak are listed k2 before k10, in the text and the page.
func TestUnitsInNaturalOrder(t *testing.T) {
	m := reports.NewMetrics(reports.MetricsOptions{})
	for _, k := range []string{"k10", "k2", "k1"} {
		m.Record(unitOp("w", "blob.put", k, 0.5, 0))
	}
	us := withoutAccount(m.Units(func(string) time.Duration { return time.Second }, nil, nil))
	var names []string
	for _, u := range us {
		names = append(names, u.Name)
	}
	if !slices.Equal(names, []string{"k1", "k2", "k10"}) {
		t.Errorf("units %v, want k1 k2 k10", names)
	}
}
