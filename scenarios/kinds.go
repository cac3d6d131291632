package scenarios

import (
	"fmt"
	"sort"
	"strings"

	"github.com/stormcheck/stormcheck/scenarios/internal/yamlx"
)

// KindNames returns the names of the workload kinds in Kinds, sorted.
func KindNames() []string {
	names := make([]string, 0, len(Kinds))
	for name := range Kinds {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

// checkKinds maps every check named in Kinds to the kinds it applies to,
// each list sorted.
func checkKinds() map[string][]string {
	m := map[string][]string{}
	for _, kind := range KindNames() {
		for _, c := range Kinds[kind].AllChecks() {
			if !contains(m[c], kind) {
				m[c] = append(m[c], kind)
			}
		}
	}
	return m
}

// checkNames returns every check named in Kinds, sorted.
func checkNames() []string {
	var names []string
	for c := range checkKinds() {
		names = append(names, c)
	}
	sort.Strings(names)
	return names
}

// describeChecks lists the checks with the kinds they apply to.
func describeChecks() string {
	ck := checkKinds()
	var parts []string
	for _, c := range checkNames() {
		parts = append(parts, c+" (kinds "+strings.Join(ck[c], ", ")+")")
	}
	return strings.Join(parts, "; ")
}

// AllChecks lists the checks that apply to the kind: the default ones, then
// the optional ones.
func (k KindSpec) AllChecks() []string {
	return append(append([]string(nil), k.Checks...), k.OptionalChecks...)
}

// AppliesTo reports whether check applies to the kind.
func AppliesTo(check, kind string) bool {
	return contains(Kinds[kind].AllChecks(), check)
}

// NearestKinds returns up to three kind names closest to name (for "unknown
// kind" messages).
func NearestKinds(name string) []string { return yamlx.Nearest(name, KindNames(), 3) }

// UnknownKind says that name is not a kind: the nearest kinds and where the
// whole list is, in one short line.
func UnknownKind(name string) string {
	s := fmt.Sprintf("unknown kind %q", name)
	if near := NearestKinds(name); len(near) > 0 {
		s += "; nearest: " + strings.Join(near, ", ")
	}
	return s + fmt.Sprintf("; 'stormcheck kinds' lists all %d kinds", len(Kinds))
}

// KindEmits reports whether the kind's workload records op.
func KindEmits(kind, op string) bool { return contains(Kinds[kind].Ops, op) }
