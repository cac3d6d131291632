package checks

import (
	"fmt"
	"sort"
	"strings"
)

// Verdict is a checker's conclusion over a whole history.
type Verdict string

const (
	// Pass: every documented rule the checker knows held.
	Pass Verdict = "pass"
	// Fail: at least one violation, each with the operations that show it.
	Fail Verdict = "fail"
	// Undecided: the checker could not decide (budget exhausted, or the
	// history does not hold enough to judge). Never a pass.
	Undecided Verdict = "undecided"
)

// Violation is one broken rule with the smallest excerpt of the history that
// shows it.
type Violation struct {
	// Kind names the rule that broke, the same for every violation of it
	// ("lost update", "two holders", "ETag/value mismatch"): most messages
	// begin with it.
	Kind string `json:"kind"`
	// Key is the resource the violation is about.
	Key string `json:"key"`
	// Message says what rule broke, in one sentence.
	Message string `json:"message"`
	// Ops are the operations that show it, in Seq order.
	Ops []Op `json:"ops"`
}

// Result is what a checker concludes.
type Result struct {
	Check string `json:"check"`
	// Workload is the scenario workload the check ran on (set by the runner).
	Workload string  `json:"workload,omitempty"`
	Verdict  Verdict `json:"verdict"`
	// Summary is one line for the terminal: what was checked and found.
	Summary string `json:"summary"`
	// Violations, at most MaxViolations of them; Total counts them all,
	// and Kinds counts them all by Violation.Kind (listed or not).
	Violations []Violation    `json:"violations,omitempty"`
	Total      int            `json:"violations_total"`
	Kinds      map[string]int `json:"violation_kinds,omitempty"`
	// Decided counts the operations the check judged (each check says
	// what it counts: writes and reads placed, lease calls judged, batches
	// settled). Zero means the check decided nothing, and then its verdict
	// is never a pass (see decided).
	Decided int `json:"decided"`
	// Judgeable counts, in the units Decided counts, the operations the
	// check's rules apply to: Decided plus those it saw and left open (a
	// write of unknown outcome nothing settled, a lease call whose state
	// was ambiguous, a key it could not judge). Share is Decided/Judgeable.
	Judgeable int `json:"judgeable"`
	// Unknown says what became of the writes of unknown outcome (a timeout,
	// a reset, a lost response) for a check that judges them; nil for the
	// others.
	Unknown *UnknownWrites `json:"unknown_writes,omitempty"`
	// Known lists the violations of shapes the target is known to produce
	// and the service does not (see KnownDivergence): shown, never failing.
	Known []KnownDivergence `json:"known_divergences,omitempty"`
	// Artifacts are files the check wants kept with the results (name ->
	// content, e.g. porcupine's HTML picture of a violation); the runner
	// writes them and lists them in Files. Checkers stay free of I/O.
	Artifacts map[string][]byte `json:"-"`
	// Files are the artifacts' paths relative to the results directory.
	Files []string `json:"files,omitempty"`
}

// UnknownWrites counts the writes whose outcome the client never learned,
// by what the check could infer from the rest of the history.
type UnknownWrites struct {
	// Applied: the write took effect (its value was read later, or a later
	// write's condition consumed it).
	Applied int `json:"applied"`
	// NotApplied: the write certainly did not take effect (its base ETag
	// was consumed by another applied write, it lost the race).
	NotApplied int `json:"not_applied"`
	// Open: nothing in the history settles it.
	Open int `json:"open"`
}

// MaxViolations bounds how many violations a result carries in full.
const MaxViolations = 20

// Checker consumes a history one operation at a time, in Seq order, and
// then concludes. Implementations keep per-key state only, so a history far
// larger than memory can be checked from its file.
type Checker interface {
	// Name is the check's name as scenarios spell it.
	Name() string
	// Observe takes the next operation.
	Observe(op *Op)
	// Finish concludes; it is called once, after the last Observe.
	Finish() Result
}

// Factory makes a fresh checker for one workload's history.
type Factory func() Checker

var registry = map[string]Factory{}

// Register makes a checker available by name. It panics on a duplicate,
// which is a programming error.
func Register(name string, f Factory) {
	if _, dup := registry[name]; dup {
		panic("checks: duplicate checker " + name)
	}
	registry[name] = f
}

// New returns a fresh checker by name.
func New(name string) (Checker, error) {
	f, ok := registry[name]
	if !ok {
		return nil, fmt.Errorf("unknown check %q (known: %v)", name, Names())
	}
	return f(), nil
}

// Names lists the registered checkers, sorted.
func Names() []string {
	out := make([]string, 0, len(registry))
	for n := range registry {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// violations collects violations up to MaxViolations and counts them all,
// by kind.
type Violations struct {
	List  []Violation
	Total int
	kinds map[string]int
}

// add records a violation whose message begins with its kind ("KIND: ...",
// see KindOf).
func (v *Violations) Add(key, msg string, ops ...Op) { v.AddKind(KindOf(msg), key, msg, ops...) }

// addKind records a violation of kind.
func (v *Violations) AddKind(kind, key, msg string, ops ...Op) {
	v.Count(kind, 1)
	if len(v.List) < MaxViolations {
		sort.Slice(ops, func(i, j int) bool { return ops[i].Seq < ops[j].Seq })
		v.List = append(v.List, Violation{Kind: kind, Key: key, Message: msg, Ops: ops})
	}
}

// count counts n violations of kind without listing them.
func (v *Violations) Count(kind string, n int) {
	if n <= 0 {
		return
	}
	if v.kinds == nil {
		v.kinds = map[string]int{}
	}
	v.Total += n
	v.kinds[kind] += n
}

// OtherKind is the kind of a violation whose message names none.
const OtherKind = "other"

// KindOf is the kind a violation message begins with: the words before its
// first ": " (letters, digits, spaces, / ' ( ) -; at most 80), else
// OtherKind.
func KindOf(msg string) string {
	k, _, ok := strings.Cut(msg, ": ")
	if !ok || len(k) < 2 || len(k) > 80 {
		return OtherKind
	}
	for i, c := range k {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case i > 0 && strings.ContainsRune(" /'()-", c):
		default:
			return OtherKind
		}
	}
	return k
}

// conclude ends a summary begun in b: the violations if any, else why the
// check could not decide (undecided), else passText; then suffix. The
// result fails on a violation, is undecided when there are reasons and no
// violation, and passes otherwise.
func (v *Violations) Conclude(name string, b *strings.Builder, undecided []string, passText, suffix string) Result {
	switch {
	case v.Total > 0:
		b.WriteString(": " + Plural(v.Total, "violation", "violations"))
	case len(undecided) > 0:
		b.WriteString(": undecided, " + strings.Join(undecided, ", "))
	default:
		b.WriteString(": " + passText)
	}
	b.WriteString(suffix)
	r := v.Result(name, b.String())
	if r.Verdict == Pass && len(undecided) > 0 {
		r.Verdict = Undecided
	}
	return r
}

// decided records how many operations the check judged. A check that
// judged none has no verdict: a pass becomes undecided, and the summary says
// why if it does not already (a check that decided nothing is never a pass).
func (r Result) WithDecided(n int) Result {
	r.Decided = max(n, 0)
	if r.Decided == 0 && r.Verdict == Pass {
		r.Verdict = Undecided
		if !strings.Contains(r.Summary, "undecided") {
			r.Summary += " (undecided: no operation judged)"
		}
	}
	return r
}

// of records how many operations the check could have judged (see
// Judgeable); never fewer than it decided.
func (r Result) Of(n int) Result {
	r.Judgeable = max(n, r.Decided)
	return r
}

// Share is the share of the operations the check could judge that it
// decided: 0 when it decided none (or could judge none).
func (r Result) Share() float64 {
	if r.Judgeable <= 0 {
		return 0
	}
	return float64(r.Decided) / float64(r.Judgeable)
}

func (v *Violations) Result(name, summary string) Result {
	r := Result{Check: name, Verdict: Pass, Summary: summary, Violations: v.List, Total: v.Total, Kinds: v.kinds}
	if v.Total > 0 {
		r.Verdict = Fail
	}
	return r
}
