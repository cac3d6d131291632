package runner

import (
	"sync"

	"github.com/stormcheck/stormcheck/checks"
)

// boundCheck is one checker of a check and the workload it judges.
type boundCheck struct {
	workload string
	c        checks.Checker
}

// checkWorkers feeds each checker of a check on a goroutine of its own:
// every checker still sees its workload's operations one at a time in
// history order, and the checkers of one history, and the reader ahead of
// them, share the machine's cores. The batches of operations are shared
// between the checkers, which only read them (a checker never changes an
// operation it observes).
type checkWorkers struct {
	feeds   []chan checkMsg
	results []checks.Result
	wg      sync.WaitGroup
}

type checkMsg struct {
	ops    []checks.Op
	end    bool      // end of a key group: EndGroup (key-local checkers only)
	expect []keyHint // the keys of the group to come (checks.KeySizer)
}

// keyHint is how many records a key of a workload has in a key group.
type keyHint struct {
	workload, key string
	ops           int
}

// checkFeedDepth is how many batches a checker may fall behind the reader.
const checkFeedDepth = 8

func startCheckWorkers(bs []boundCheck) *checkWorkers {
	w := &checkWorkers{results: make([]checks.Result, len(bs))}
	for i, b := range bs {
		ch := make(chan checkMsg, checkFeedDepth)
		w.feeds = append(w.feeds, ch)
		w.wg.Add(1)
		go func() {
			defer w.wg.Done()
			for m := range ch {
				if m.end {
					b.c.(checks.KeyLocal).EndGroup()
					continue
				}
				if ks, ok := b.c.(checks.KeySizer); ok {
					for _, h := range m.expect {
						if h.workload == b.workload {
							ks.ExpectKey(h.key, h.ops)
						}
					}
				}
				for j := range m.ops {
					if m.ops[j].Workload == b.workload {
						b.c.Observe(&m.ops[j])
					}
				}
			}
			if w.results != nil {
				w.results[i] = b.c.Finish()
				w.results[i].Workload = b.workload
			}
		}()
	}
	return w
}

// feed hands a batch to every checker.
func (w *checkWorkers) feed(ops []checks.Op) {
	for _, ch := range w.feeds {
		ch <- checkMsg{ops: ops}
	}
}

// expect tells every checker the keys of the group to come.
func (w *checkWorkers) expect(hints []keyHint) {
	if len(hints) == 0 {
		return
	}
	for _, ch := range w.feeds {
		ch <- checkMsg{expect: hints}
	}
}

// endGroup ends a key group for every checker (all key-local).
func (w *checkWorkers) endGroup() {
	for _, ch := range w.feeds {
		ch <- checkMsg{end: true}
	}
}

// finish waits for the checkers to take what they were fed and conclude,
// and returns their results in the order they were started.
func (w *checkWorkers) finish() []checks.Result {
	for _, ch := range w.feeds {
		close(ch)
	}
	w.wg.Wait()
	return w.results
}

// abandon stops the checkers without concluding (the check failed).
func (w *checkWorkers) abandon() {
	w.results = nil
	for _, ch := range w.feeds {
		close(ch)
	}
	w.wg.Wait()
}
