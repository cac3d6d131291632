package filerest

import (
	"fmt"
	"net/http"
	"sort"
	"strings"

	"github.com/stormcheck/stormcheck/checks"
)

// FileLeaseName is the file-lease check as scenarios name it.
const FileLeaseName = "file-lease"

func init() {
	checks.Register(FileLeaseName, func() checks.Checker { return NewFileLease() })
}

// tenure is one granted file lease, certainly held from its acquire's
// return to end: the call of its release (any outcome: a release that
// failed leaves the lease, but nothing then bounds how long), or, without
// one, the call of its holder's last write under it (or the grant itself).
// Never longer than the truth, so every overlap found is real.
type tenure struct {
	acquire checks.Op
	end     int64
	last    checks.Op
}

// FileLease is the file-lease check: no two granted leases of one file
// held at the same time, no write without the lease id accepted, and no
// write with the holder's id refused for its lease, while a lease is
// certainly held.
type FileLease struct {
	tenures map[string][]*tenure          // key -> granted leases
	held    map[string]map[string]*tenure // key -> lease id -> its open tenure
	writes  map[string][]checks.Op        // key -> writes
	calls   int
}

// NewFileLease makes the check.
func NewFileLease() *FileLease {
	return &FileLease{tenures: map[string][]*tenure{}, held: map[string]map[string]*tenure{}, writes: map[string][]checks.Op{}}
}

func (c *FileLease) Name() string { return FileLeaseName }

func (c *FileLease) Observe(op *checks.Op) {
	switch op.Kind {
	case opAcquire:
		c.calls++
		if op.Outcome != checks.OK {
			return // refused; or unknown: the release that settles it bounds nothing certain
		}
		t := &tenure{acquire: *op, end: op.Return, last: *op}
		c.tenures[op.Key] = append(c.tenures[op.Key], t)
		if c.held[op.Key] == nil {
			c.held[op.Key] = map[string]*tenure{}
		}
		c.held[op.Key][op.In.LeaseID] = t
	case opRelease:
		c.calls++
		if t := c.held[op.Key][op.In.LeaseID]; t != nil {
			t.end, t.last = max(t.end, op.Call), *op
			delete(c.held[op.Key], op.In.LeaseID)
		}
	case opPutRange:
		c.calls++
		if t := c.held[op.Key][op.In.LeaseID]; t != nil && op.In.LeaseID != "" && op.Call > t.end {
			t.end, t.last = op.Call, *op
		}
		c.writes[op.Key] = append(c.writes[op.Key], *op)
	}
}

func (c *FileLease) Finish() checks.Result {
	var v checks.Violations
	keys := make([]string, 0, len(c.tenures))
	for k := range c.tenures {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	granted, writes := 0, 0
	for _, k := range keys {
		ts := c.tenures[k]
		sort.Slice(ts, func(i, j int) bool { return ts[i].acquire.Return < ts[j].acquire.Return })
		granted += len(ts)
		for i, a := range ts {
			for _, b := range ts[i+1:] {
				if b.acquire.Return >= a.end {
					break
				}
				if b.acquire.In.LeaseID != a.acquire.In.LeaseID {
					v.Add(k, fmt.Sprintf("two holders: the lease %s was granted while %s, granted earlier, was still held (not yet released)", b.acquire.In.LeaseID, a.acquire.In.LeaseID),
						a.acquire, a.last, b.acquire)
				}
			}
		}
		for _, w := range c.writes[k] {
			t := heldDuring(ts, w.Call, w.Return)
			if t == nil {
				continue
			}
			writes++
			switch {
			case w.In.LeaseID == "" && w.Outcome == checks.OK:
				v.Add(k, fmt.Sprintf("write without the lease id accepted: a Put Range without x-ms-lease-id succeeded while the lease %s was held (want 412 LeaseIdMissing)", t.acquire.In.LeaseID),
					t.acquire, w, t.last)
			case w.In.LeaseID == t.acquire.In.LeaseID && w.Out.Status == http.StatusPreconditionFailed:
				v.Add(k, fmt.Sprintf("holder's write refused: a Put Range with the lease id %s got 412 %s while that lease was held", w.In.LeaseID, w.Out.ErrorCode),
					t.acquire, w, t.last)
			}
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %d lease calls and writes, %d leases granted, %d writes under a held lease judged", FileLeaseName, c.calls, granted, writes)
	r := v.Conclude(FileLeaseName, &b, nil, "one holder at a time, writes without the id refused", "")
	return r.WithDecided(granted + writes).Of(c.calls)
}

// heldDuring is the tenure of ts certainly held over [call, ret], or nil.
func heldDuring(ts []*tenure, call, ret int64) *tenure {
	for _, t := range ts {
		if t.acquire.Return < call && ret < t.end {
			return t
		}
	}
	return nil
}
