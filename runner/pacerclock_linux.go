package runner

import (
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// precisePacer reports whether the open loop's pacer can wait for each
// arrival with a timer of microsecond precision.
const precisePacer = true

// preciseClock waits on two timers at once, whichever fires first. Go's own
// timers wake an idle process to the millisecond at best (the network
// poller waits whole milliseconds), so an arrival due in 0.3 ms would start
// 0.7 ms late; a timerfd's expiry wakes the poller within microseconds on a
// free core. On a busy one the poller is looked at less often than Go's
// timers are, which then fire first. A goroutine reads the timerfd through
// the poller and says when it fired; nobody holds a thread meanwhile.
type preciseClock struct {
	fd    int      // the timerfd (not f.Fd(), which would make f blocking)
	f     *os.File // fd, registered with the poller
	fired chan struct{}
	timer *time.Timer
}

func newPreciseClock() (*preciseClock, error) {
	fd, err := unix.TimerfdCreate(unix.CLOCK_MONOTONIC, unix.TFD_NONBLOCK|unix.TFD_CLOEXEC)
	if err != nil {
		return nil, err
	}
	c := &preciseClock{fd: fd, f: os.NewFile(uintptr(fd), "pacer-timerfd"), fired: make(chan struct{}, 1), timer: time.NewTimer(time.Hour)}
	c.timer.Stop()
	go func() { // ends when Close closes the file
		var buf [8]byte
		for {
			if _, err := c.f.Read(buf[:]); err != nil {
				return
			}
			select {
			case c.fired <- struct{}{}:
			default:
			}
		}
	}()
	return c, nil
}

// sleep waits about d (which cannot be cut short: keep it to milliseconds);
// it may return early after an earlier wait's late timer, so the caller
// looks at the clock again.
func (c *preciseClock) sleep(d time.Duration) error {
	if d <= 0 {
		return nil
	}
	select { // a timerfd expiry left from the last wait
	case <-c.fired:
	default:
	}
	its := unix.ItimerSpec{Value: unix.NsecToTimespec(int64(d))}
	if err := unix.TimerfdSettime(c.fd, 0, &its, nil); err != nil {
		return err
	}
	c.timer.Reset(d)
	select {
	case <-c.fired:
		c.timer.Stop()
	case <-c.timer.C:
		var off unix.ItimerSpec // disarm
		_ = unix.TimerfdSettime(c.fd, 0, &off, nil)
	}
	return nil
}

func (c *preciseClock) Close() error {
	c.timer.Stop()
	return c.f.Close()
}
