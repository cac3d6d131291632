package azurite

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/stormcheck/stormcheck/internal/procgroup"
)

// Stop shuts Azurite down: SIGTERM to its process group, up to StopTimeout
// for a graceful exit, then SIGKILL to the group. It then closes the log
// (which is kept) and removes the data workspace; nothing else in WorkDir
// is touched. It is idempotent and safe to call concurrently,
// e.g. from a signal-handling goroutine: later calls wait for the first and
// return its result. It needs no context, and its waits are bounded
// (StopTimeout plus a few seconds). A process that already died is fine.
func (i *Instance) Stop() error {
	i.stopOnce.Do(func() { i.stopErr = i.stop() })
	return i.stopErr
}

func (i *Instance) stop() error {
	i.life.Lock()
	defer i.life.Unlock()
	var errs []error
	p := i.proc
	if i.paused { // a frozen process would not act on SIGTERM
		_ = p.Signal(procgroup.SigCont)
		i.paused = false
	}
	if err := p.Terminate(procgroup.SigTerm, i.stopTimeout, func() {
		i.sink.note("azurite did not exit within %s of SIGTERM; sending SIGKILL", i.stopTimeout)
	}); err != nil {
		errs = append(errs, fmt.Errorf("azurite: %w", err))
	}
	if err := i.sink.close(2 * time.Second); err != nil {
		errs = append(errs, fmt.Errorf("azurite: log: %w", err))
	}
	if err := os.RemoveAll(i.dataDir); err != nil {
		errs = append(errs, fmt.Errorf("azurite: workspace: %w", err))
	}
	return errors.Join(errs...)
}
