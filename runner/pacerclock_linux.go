package runner

import (
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// precisePacer reports whether the open loop's pacer can wait for each
// arrival with a timer of nanosecond precision.
const precisePacer = true

// preciseClock waits with a timerfd read through Go's network poller. Go's
// own timers wake an idle process to the millisecond at best (the poller
// waits whole milliseconds), so an arrival due in 0.3 ms would start 0.7 ms
// late; a timerfd's expiry wakes the poller within microseconds of its due
// time on a free core, and the waiting goroutine holds no thread meanwhile.
type preciseClock struct {
	fd  int      // the timerfd (not f.Fd(), which would make f blocking)
	f   *os.File // fd, registered with the poller
	buf [8]byte
}

func newPreciseClock() (*preciseClock, error) {
	fd, err := unix.TimerfdCreate(unix.CLOCK_MONOTONIC, unix.TFD_NONBLOCK|unix.TFD_CLOEXEC)
	if err != nil {
		return nil, err
	}
	return &preciseClock{fd: fd, f: os.NewFile(uintptr(fd), "pacer-timerfd")}, nil
}

// sleep waits d (which cannot be cut short: keep it to milliseconds).
func (c *preciseClock) sleep(d time.Duration) error {
	if d <= 0 {
		return nil
	}
	its := unix.ItimerSpec{Value: unix.NsecToTimespec(int64(d))}
	if err := unix.TimerfdSettime(c.fd, 0, &its, nil); err != nil {
		return err
	}
	_, err := c.f.Read(c.buf[:])
	return err
}

func (c *preciseClock) Close() error { return c.f.Close() }
