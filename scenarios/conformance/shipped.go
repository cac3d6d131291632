package conformance

import (
	"embed"
	"io/fs"
	"path"
	"slices"
	"sort"
	"strings"
)

// The rule files and baselines of this directory are compiled into every
// stormcheck binary, so that `stormcheck conform` runs from any directory
// and from an installed binary.
//
//go:embed rules/*.yaml baselines/*.json
var shipped embed.FS

// ShippedLabel names the built-in rule files in errors and in Rule.File.
const ShippedLabel = "(built-in) scenarios/conformance/rules"

// Shipped loads the rules compiled into the binary.
func Shipped() (*RuleSet, error) {
	rules, err := fs.Sub(shipped, "rules")
	if err != nil {
		return nil, err
	}
	return LoadFS(rules, ShippedLabel)
}

// ShippedBaselines lists the names of the baselines compiled into the
// binary (e.g. "azurite-3.37.0"), sorted.
func ShippedBaselines() []string {
	files, _ := fs.Glob(shipped, "baselines/*.json")
	var names []string
	for _, f := range files {
		names = append(names, strings.TrimSuffix(path.Base(f), ".json"))
	}
	sort.Strings(names)
	return names
}

// ShippedBaseline returns the bytes of the baseline compiled into the
// binary under name (see ShippedBaselines); false if there is none.
func ShippedBaseline(name string) ([]byte, bool) {
	if !slices.Contains(ShippedBaselines(), name) {
		return nil, false
	}
	b, err := shipped.ReadFile("baselines/" + name + ".json")
	return b, err == nil
}

// Overlay adds user's rules to rs: a rule whose id rs already has replaces
// it in place, any other is appended in user's order. It returns the ids
// replaced, in user's order.
func (rs *RuleSet) Overlay(user *RuleSet) (replaced []string) {
	at := make(map[string]int, len(rs.Rules))
	for i, r := range rs.Rules {
		at[r.ID] = i
	}
	for _, r := range user.Rules {
		if i, ok := at[r.ID]; ok {
			rs.Rules[i] = r
			replaced = append(replaced, r.ID)
			continue
		}
		at[r.ID] = len(rs.Rules)
		rs.Rules = append(rs.Rules, r)
	}
	return replaced
}
