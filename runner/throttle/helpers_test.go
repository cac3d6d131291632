package throttle

import (
	"encoding/json"
	"sync"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"
)

// aztablesMarshal returns the JSON of an entity with one property, as
// callers of aztables build them.
func aztablesMarshal(pk, rk string) ([]byte, error) {
	return json.Marshal(aztables.EDMEntity{
		Entity:     aztables.Entity{PartitionKey: pk, RowKey: rk},
		Properties: map[string]any{"N": int32(1)},
	})
}

// manualClock is a virtual clock for Options.Clock: it moves only when the
// test moves it, so the proxy's decisions depend on the arrivals the test
// scheduled and never on how fast the machine delivered them.
type manualClock struct {
	mu  sync.Mutex
	now time.Time
}

func newManualClock() *manualClock { return &manualClock{now: t0} }

func (c *manualClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Set moves the clock to t0 + d.
func (c *manualClock) Set(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = t0.Add(d)
}

// Advance moves the clock d forward.
func (c *manualClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}
