package checks

import "fmt"

// TargetAware is a checker whose judgement depends on the kind of target
// the history was recorded against (a scenario's target.kind: "samba",
// "azurite", ...): the runner calls SetTarget before the first Observe.
// Checks use it only to classify a violation the target is known to
// produce as a KnownDivergence of that target; a check never passes on one
// target what it fails on the service it speaks for.
type TargetAware interface {
	SetTarget(kind string)
}

// KnownDivergence is one shape of violation the target is known to
// produce and the service the check speaks for does not (a documented bug
// of a local stand-in server). It is counted and shown with the check's
// result, with examples, and does not fail the check; against any other
// target the same shape is a violation.
type KnownDivergence struct {
	// Kind names the shape, like a Violation's kind.
	Kind string `json:"kind"`
	// Of says whose divergence it is and from what, e.g.
	// "known divergence of Samba (not Azure Files behaviour)".
	Of string `json:"of"`
	// Count counts the operations of this shape.
	Count int `json:"count"`
	// Examples are up to MaxKnownExamples of them, with the operations
	// that show each.
	Examples []Violation `json:"examples,omitempty"`
}

// MaxKnownExamples bounds the examples a KnownDivergence carries.
const MaxKnownExamples = 3

// Line is the divergence in one line: "OF: COUNT × KIND".
func (k KnownDivergence) Line() string { return fmt.Sprintf("%s: %d × %s", k.Of, k.Count, k.Kind) }

// AddKnown counts one operation of a known divergence's shape in ks (by
// kind), keeping the first MaxKnownExamples as examples.
func AddKnown(ks []KnownDivergence, of, kind, key, msg string, ops ...Op) []KnownDivergence {
	i := 0
	for i < len(ks) && (ks[i].Kind != kind || ks[i].Of != of) {
		i++
	}
	if i == len(ks) {
		ks = append(ks, KnownDivergence{Kind: kind, Of: of})
	}
	ks[i].Count++
	if len(ks[i].Examples) < MaxKnownExamples {
		var v Violations
		v.AddKind(kind, key, msg, ops...)
		ks[i].Examples = append(ks[i].Examples, v.List[0])
	}
	return ks
}
