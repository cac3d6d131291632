//go:build !linux

package runner

import (
	"errors"
	"time"
)

// precisePacer: no precise timer here; the pacer uses Go's timers.
const precisePacer = false

type preciseClock struct{}

func newPreciseClock() (*preciseClock, error) { return nil, errors.ErrUnsupported }

func (*preciseClock) sleep(d time.Duration) error { time.Sleep(d); return nil }

func (*preciseClock) Close() error { return nil }
