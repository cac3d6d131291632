package files_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stormcheck/stormcheck/checks"
	_ "github.com/stormcheck/stormcheck/checks/smb"
	"github.com/stormcheck/stormcheck/runner/faults"
	_ "github.com/stormcheck/stormcheck/runner/files"
	"github.com/stormcheck/stormcheck/runner/samba"
	"github.com/stormcheck/stormcheck/runner/samba/sambatest"
	"github.com/stormcheck/stormcheck/runner/smb2"
	"github.com/stormcheck/stormcheck/scenarios"
)

// brokenStage starts the SMB stream stage in front of inst with one fault
// of kind, open for the whole test, and returns it.
func brokenStage(t *testing.T, inst *samba.Instance, kind string) (*faults.SMBStream, *faults.Schedule) {
	t.Helper()
	s := faults.NewSchedule([]scenarios.Fault{{Name: "bp", Kind: kind, Fraction: 1}}, 1, nil)
	s.Begin(time.Now())
	st, err := faults.StartSMBStream(s, inst.Addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.Stop)
	return st, s
}

// TestSMBBrokenPromises: each example's workload, straight to smbd, passes
// its check (delete-pending with one actor: several racing actors meet a
// Samba 4.17 race the check reports); through the stage of its broken
// promise the same check fails, naming what it caught.
func TestSMBBrokenPromises(t *testing.T) {
	inst := sambatest.Start(t, samba.Options{})
	for _, tc := range []struct {
		example, check, fault string
		actors, iters         int
		want                  string
	}{
		{"files-share-modes.yaml", "share-modes", "broken.smb-share-access", 0, 150, "held at the same time"},
		{"files-byte-range-locks.yaml", "byte-range-locks", "broken.smb-lock-shared", 0, 150, "held"},
		{"files-delete-pending.yaml", "delete-pending", "broken.smb-keep-file", 1, 400, "after"},
		{"files-leases.yaml", "lease-breaks", "broken.smb-lease-write", 0, 150, "had not acknowledged its break"},
	} {
		t.Run(tc.fault, func(t *testing.T) {
			if r := driveExample(t, tc.example, inst, inst.Addr, tc.actors, tc.iters, tc.check); r.Verdict != checks.Pass || r.Decided == 0 {
				t.Fatalf("unmodified server: %s %s %+v", r.Verdict, r.Summary, r.Violations)
			}
			st, s := brokenStage(t, inst, tc.fault)
			r := driveExample(t, tc.example, inst, st.Addr(), tc.actors, tc.iters, tc.check)
			if s.Counts()["bp"] == 0 {
				t.Fatalf("the stage rewrote nothing (skipped %d signed or sealed)", st.Skipped.Load())
			}
			if r.Verdict != checks.Fail || len(r.Violations) == 0 || !strings.Contains(r.Violations[0].Message, tc.want) {
				t.Fatalf("%s: %s %s", tc.fault, r.Verdict, r.Summary)
			}
			t.Logf("%d messages rewritten; %s", s.Counts()["bp"], r.Summary)
		})
	}
}

// TestSambaSettingsThatBreakAPromise: a Samba that grants every lock and
// refuses no I/O ("locking = no") fails byte-range-locks; one that grants
// every oplock and lease and never breaks one ("fake oplocks = yes") fails
// lease-breaks.
func TestSambaSettingsThatBreakAPromise(t *testing.T) {
	for _, tc := range []struct {
		example, check string
		opts           samba.Options
	}{
		{"files-byte-range-locks.yaml", "byte-range-locks", samba.Options{IgnoreByteRangeLocks: true}},
		{"files-leases.yaml", "lease-breaks", samba.Options{FakeOplocks: true}},
	} {
		t.Run(tc.check, func(t *testing.T) {
			inst := sambatest.Start(t, tc.opts)
			if r := driveExample(t, tc.example, inst, inst.Addr, 0, 150, tc.check); r.Verdict != checks.Fail {
				t.Fatalf("%+v: %s %s", tc.opts, r.Verdict, r.Summary)
			}
		})
	}
}

// TestSMBStageLeavesSignedMessages: on a signed session the stage cannot
// rewrite (the signature would no longer verify): it passes the CREATE on
// as it is, counts it as skipped, and the server's answer stands.
func TestSMBStageLeavesSignedMessages(t *testing.T) {
	inst := sambatest.Start(t, samba.Options{})
	st, s := brokenStage(t, inst, "broken.smb-share-access")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	logon := func() *smb2.Tree {
		c, err := smb2.Dial(ctx, st.Addr(), smb2.Options{RequireSigning: true})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		sess, err := c.SessionSetup(ctx, smb2.Credentials{User: inst.User, Password: inst.Password})
		if err != nil {
			t.Fatal(err)
		}
		tr, err := sess.TreeConnect(ctx, inst.Share)
		if err != nil {
			t.Fatal(err)
		}
		return tr
	}
	a, b := logon(), logon()
	if _, err := a.OpenFile(ctx, "signed", smb2.FileReadData|smb2.FileWriteData, smb2.ShareNone, smb2.FileOverwriteIf); err != nil {
		t.Fatal(err)
	}
	_, err := b.OpenFile(ctx, "signed", smb2.FileReadData, smb2.ShareAll, smb2.FileOpen)
	if !smb2.IsStatus(err, smb2.StatusSharingViolation) {
		t.Fatalf("second open through the stage on a signed session: %v, want STATUS_SHARING_VIOLATION", err)
	}
	if st.Skipped.Load() < 2 || s.Counts()["bp"] != 0 {
		t.Fatalf("skipped %d, rewritten %d: want both CREATEs skipped, none rewritten", st.Skipped.Load(), s.Counts()["bp"])
	}
}
