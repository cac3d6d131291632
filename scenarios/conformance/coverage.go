package conformance

import (
	"fmt"
	"io"
	"strings"
)

// OpCoverage is one operation's checklist with the rules covering each
// point.
type OpCoverage struct {
	Ref *OpRef
	// Dims are the checklist's dimensions in order: the parameters, then
	// state, error and precedence (those the checklist has).
	Dims []DimCoverage
}

// DimCoverage is one dimension of an operation's checklist.
type DimCoverage struct {
	// Name is the parameter, or DimState, DimError, DimPrecedence.
	Name   string
	Points []PointCoverage
}

// PointCoverage is one point and the ids of the rules covering it: Rules
// decide what the answer is; Undecided accept several answers there (a
// list of statuses or error codes) and cite no live evidence deciding
// between them (Rule.Undecided). A point with Rules is covered, one with
// only Undecided is undecided, one with neither a hole.
type PointCoverage struct {
	Value     string
	Rules     []string
	Undecided []string
}

// Covered and Total count an operation's covered points and all of them.
func (c OpCoverage) Covered() (covered, total int) {
	for _, d := range c.Dims {
		for _, p := range d.Points {
			total++
			if len(p.Rules) > 0 {
				covered++
			}
		}
	}
	return covered, total
}

// Holes lists the points no rule covers, as DIMENSION=VALUE.
func (c OpCoverage) Holes() []string {
	return c.points(func(p PointCoverage) bool { return len(p.Rules)+len(p.Undecided) == 0 })
}

// UndecidedPoints lists the points only undecided rules cover, as
// DIMENSION=VALUE.
func (c OpCoverage) UndecidedPoints() []string {
	return c.points(func(p PointCoverage) bool { return len(p.Rules) == 0 && len(p.Undecided) > 0 })
}

func (c OpCoverage) points(keep func(PointCoverage) bool) []string {
	var out []string
	for _, d := range c.Dims {
		for _, p := range d.Points {
			if keep(p) {
				out = append(out, d.Name+"="+p.Value)
			}
		}
	}
	return out
}

// Coverage maps rules onto Reference: every operation of the checklist,
// each point with the rules whose Covers name it.
func Coverage(rules []Rule) []OpCoverage {
	by, open := map[Cover][]string{}, map[Cover][]string{}
	for i := range rules {
		r := &rules[i]
		for _, c := range r.Covers {
			if r.Undecided(c.Op) {
				open[c] = append(open[c], r.ID)
			} else {
				by[c] = append(by[c], r.ID)
			}
		}
	}
	out := make([]OpCoverage, len(Reference))
	for i := range Reference {
		ref := &Reference[i]
		oc := OpCoverage{Ref: ref}
		dim := func(name string, values []string) {
			if len(values) == 0 {
				return
			}
			dc := DimCoverage{Name: name}
			for _, v := range values {
				c := Cover{Op: ref.Op, Dim: name, Value: v}
				dc.Points = append(dc.Points, PointCoverage{Value: v, Rules: by[c], Undecided: open[c]})
			}
			oc.Dims = append(oc.Dims, dc)
		}
		for _, p := range ref.Params {
			dim(p.Name, p.Classes)
		}
		dim(DimState, ref.States)
		dim(DimError, ref.Errors)
		dim(DimPrecedence, ref.Precedence)
		out[i] = oc
	}
	return out
}

// WriteCoverage prints the coverage map: per operation its REST page, how
// many points rules cover, and every point marked + (covered, with how many
// rules), ? (undecided) or - (a hole); a summary line ends it.
func WriteCoverage(w io.Writer, cov []OpCoverage) error {
	var b strings.Builder
	b.WriteString("coverage of the REST reference checklist: +VALUE covered (by N rules when more than one), ?VALUE undecided (its rules accept several answers and no live evidence decides), -VALUE a hole\n")
	var all, done, undecided, complete int
	for _, oc := range cov {
		c, t := oc.Covered()
		all, done, undecided = all+t, done+c, undecided+len(oc.UndecidedPoints())
		if c == t {
			complete++
		}
		fmt.Fprintf(&b, "\n%s (%s)  %d/%d  %s\n", oc.Ref.Name, oc.Ref.Op, c, t, oc.Ref.Page)
		for _, d := range oc.Dims {
			fmt.Fprintf(&b, "  %-32s", d.Name)
			for _, p := range d.Points {
				switch n := len(p.Rules); {
				case n == 0 && len(p.Undecided) > 0:
					b.WriteString(" ?" + p.Value)
				case n == 0:
					b.WriteString(" -" + p.Value)
				case n == 1:
					b.WriteString(" +" + p.Value)
				default:
					fmt.Fprintf(&b, " +%s(%d)", p.Value, n)
				}
			}
			b.WriteByte('\n')
		}
	}
	fmt.Fprintf(&b, "\n%d of %d points covered, %d undecided; %d of %d operations complete\n", done, all, undecided, complete, len(cov))
	_, err := io.WriteString(w, b.String())
	return err
}
