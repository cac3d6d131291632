package lease

import (
	"strings"

	"github.com/stormcheck/stormcheck/checks"
)

// ContainerLeaseName is the name scenarios use for the container-lease check.
const ContainerLeaseName = "container-lease"

func init() {
	checks.Register(ContainerLeaseName, func() checks.Checker { return NewContainerLease() })
}

// ContainerLease checks container leases. On a container only Delete
// Container needs the lease:
//
//   - container.setmeta, container.getprops, container.setacl (and getmeta,
//     getacl) sent without a lease id must succeed on a leased container: a
//     lease refusal (412) of them is a violation in any state, the service
//     over-enforced;
//   - container.delete sent without a lease id while a lease was certainly
//     held must be refused with 412 LeaseIdMissing; accepted, it is a
//     violation (as is any container operation accepted with a lease id that
//     was certainly not held);
//   - container.lease.* calls follow the same state machine as blob leases
//     (the lease-protocol core), and two holders of one container's lease
//     are a violation (the lease-exclusion core).
//
// Each operation is reported at most once.
type ContainerLease struct {
	keys leaseKeys
}

// NewContainerLease returns a fresh checker.
func NewContainerLease() *ContainerLease {
	return &ContainerLease{keys: newLeaseKeys(containerLeaseSpace)}
}

// Name implements Checker.
func (c *ContainerLease) Name() string { return ContainerLeaseName }

// Observe implements Checker.
func (c *ContainerLease) Observe(op *checks.Op) { c.keys.observe(op) }

// Finish implements Checker.
func (c *ContainerLease) Finish() checks.Result {
	var v checks.Violations
	var et leaseExclTotals
	var pt leaseProtoTotals
	for _, m := range c.keys.models() {
		m.checkExclusion(&et)
		m.checkProtocol(&pt)
		m.flush(&v)
	}
	// "1 container, 4 acquisitions, 0 breaks, 0 expiries, 2 deletes, 4 lease
	// calls and 9 container calls judged (3 calls while certainly leased): ..."
	summary := et.summary(containerLeaseSpace, v.Total, "only Delete Container enforced the lease")
	head, tail, _ := strings.Cut(summary, ": ")
	head = strings.Replace(head, checks.Plural(et.writes, "write", "writes"), checks.Plural(et.writes, "delete", "deletes"), 1)
	summary = head + ", " + checks.Plural(pt.leaseJudged, "lease call", "lease calls") + " and " +
		checks.Plural(pt.dataJudged, "container call", "container calls") + " judged"
	if pt.whileLeased > 0 {
		summary += " (" + checks.Plural(pt.whileLeased, "call", "calls") + " while certainly leased)"
	}
	if pt.settled > 0 {
		summary += ", " + checks.Plural(pt.settled, "lease call", "lease calls") + " of unknown outcome settled by later calls"
	}
	summary += ": " + tail
	r := v.Result(ContainerLeaseName, summary)
	if r.Verdict == checks.Pass && (et.acquired == 0 || pt.leaseJudged+pt.dataJudged == 0) {
		r.Verdict = checks.Undecided
	}
	return r.WithDecided(pt.WithDecided()).Of(pt.judgeable())
}
