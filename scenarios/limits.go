package scenarios

import (
	"fmt"
	"math"
	"regexp"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Bounds on what a scenario may ask for. A file is also bounded in size and
// in what its aliases expand to (yamlx.MaxFileBytes, yamlx.MaxAliasNodes);
// these bound the run it describes (and maxRate, in workload.go, an open
// workload's arrivals per second).
const (
	// maxActors bounds the actors of one workload, and of all workloads
	// together: each actor is a goroutine with its own connection.
	maxActors = 10000
	// maxKeys bounds the keys of one workload, and of all together: setup
	// creates every key before the load starts.
	maxKeys = 100000
	// maxPayloadBytes bounds a written value's padding.
	maxPayloadBytes = 4 << 20
	// maxWorkloads bounds the workloads of a scenario: each has its own
	// containers, tables or queues, a row in every report table and its own
	// checks. The scenarios shipped have at most five.
	maxWorkloads = 100
	// maxStages bounds the ramp stages of one workload.
	maxStages = 100
)

// scenarioName is what a scenario's name may be: it names the results
// folder (results/NAME-DATE-TIME), so it must be one plain file name on
// every platform: no separators, no "..", nothing hidden.
var scenarioName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// scenarioNameRule is what the name error says is allowed.
const scenarioNameRule = "1 to 64 letters, digits, '.', '_' and '-', starting with a letter or digit (it names the results folder results/NAME-DATE-TIME)"

// totals bounds the actors and keys of all the workloads together.
func (d *decoder) totals(n *yaml.Node, s *Scenario) {
	actors := map[string]int{}
	keys := map[string]int{}
	for _, w := range s.Workloads {
		a := w.Actors
		if a == 0 {
			a = 1
			if w.Executor == ExecutorOpen {
				a = defaultOpenActors
			}
		}
		if w.Executor != ExecutorOpen {
			for _, st := range w.Stages {
				a = max(a, int(math.Ceil(st.Target)))
			}
		}
		actors[w.Name] += a
		keys[w.Name] += max(w.Keys, 1)
	}
	for _, c := range []struct {
		what   string
		by     map[string]int
		bound  int
		reason string
	}{
		{"actors", actors, maxActors, "each actor is a goroutine with its own connection"},
		{"keys", keys, maxKeys, "setup creates every key before the load starts"},
	} {
		if total := sum(c.by); total > c.bound {
			d.errorf(n, "workloads", "the workloads have %d %s in all (%s); a scenario has at most %d (%s)",
				total, c.what, largest(c.by, 3), c.bound, c.reason)
		}
	}
}

func sum(m map[string]int) int {
	t := 0
	for _, v := range m {
		t += v
	}
	return t
}

// largest lists the n largest entries of m as "name: value", largest first.
func largest(m map[string]int, n int) string {
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	sort.Slice(names, func(i, j int) bool {
		if m[names[i]] != m[names[j]] {
			return m[names[i]] > m[names[j]]
		}
		return names[i] < names[j]
	})
	var parts []string
	for _, k := range names[:min(n, len(names))] {
		parts = append(parts, fmt.Sprintf("%s: %d", k, m[k]))
	}
	if len(names) > n {
		parts = append(parts, "...")
	}
	return strings.Join(parts, ", ")
}
