package checkstest

import (
	"hash/fnv"

	"github.com/stormcheck/stormcheck/checks"
)

// FeedGrouped feeds ops to c one group of keys at a time (a key's group is
// the FNV-32a hash of its name modulo groups), as runner.CheckHistory does
// for a large history, and returns c's result.
func FeedGrouped(ops []checks.Op, c checks.KeyLocal, groups int) checks.Result {
	c.Groups(groups)
	for g := range groups {
		for i := range ops {
			h := fnv.New32a()
			h.Write([]byte(ops[i].Key))
			if int(h.Sum32())%groups == g {
				c.Observe(&ops[i])
			}
		}
		c.EndGroup()
	}
	return c.Finish()
}
