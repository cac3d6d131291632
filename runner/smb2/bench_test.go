package smb2_test

import (
	"errors"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stormcheck/stormcheck/runner/samba"
	"github.com/stormcheck/stormcheck/runner/samba/sambatest"
	"github.com/stormcheck/stormcheck/runner/smb2"
)

// BenchmarkRacingExclusiveOpens: 16 clients (one connection and session
// each) race opens of one file with share access none against the managed
// Samba; a granted open is closed at once. It reports open attempts/s and
// granted opens/s, and fails if an attempt ends in anything but success or
// STATUS_SHARING_VIOLATION.
//
//	go test -run XXX -bench RacingExclusiveOpens -benchtime 2000x ./runner/smb2/
func BenchmarkRacingExclusiveOpens(b *testing.B) {
	inst := sambatest.Start(b, samba.Options{})
	const clients = 16
	trees := make([]*smb2.Tree, clients)
	for i := range trees {
		trees[i] = sambatest.Logon(b, inst, smb2.Options{})
	}
	ctx := b.Context()
	f, err := trees[0].OpenFile(ctx, "hot", smb2.GenericWrite, smb2.ShareAll, smb2.FileOverwriteIf)
	if err != nil {
		b.Fatal(err)
	}
	f.Close(ctx)
	var granted, refused, left atomic.Int64
	left.Store(int64(b.N))
	var wg sync.WaitGroup
	var failed atomic.Value
	b.ResetTimer()
	for _, tr := range trees {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for left.Add(-1) >= 0 {
				f, err := tr.OpenFile(ctx, "hot", smb2.FileReadData|smb2.FileWriteData, smb2.ShareNone, smb2.FileOpen)
				switch {
				case err == nil:
					granted.Add(1)
					if err := f.Close(ctx); err != nil {
						failed.Store(err)
					}
				case errors.Is(err, smb2.StatusSharingViolation):
					refused.Add(1)
				default:
					failed.Store(err)
				}
			}
		}()
	}
	wg.Wait()
	b.StopTimer()
	if err, _ := failed.Load().(error); err != nil {
		b.Fatal(err)
	}
	secs := b.Elapsed().Seconds()
	b.ReportMetric(float64(b.N)/secs, "attempts/s")
	b.ReportMetric(float64(granted.Load())/secs, "granted/s")
	b.ReportMetric(float64(refused.Load())/float64(b.N), "refused/attempt")
}
