package files

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/directory"
	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/runner/smb2"
	"github.com/stormcheck/stormcheck/runner/target"
	"github.com/stormcheck/stormcheck/runner/workload"
	"github.com/stormcheck/stormcheck/scenarios"
)

// SMB op kinds of files.interplay besides open, close, read and write.
const (
	OpSetDelete = "files.set-delete"
	OpLock      = "files.lock"
	OpUnlock    = "files.unlock"
)

// The documented answers of a REST call on a file an SMB client holds
// ("Manage file locks"; the Files error codes). A delete-pending file is
// answered SMBDeletePending by the locks page and DeletePending by the
// error-code table and the SDKs: either is accepted, and the check says
// which was seen.
var (
	sharingViolation = workload.Expect{Status: http.StatusConflict, Code: "SharingViolation"}
	smbDeletePending = workload.Expect{Status: http.StatusConflict, Code: "SMBDeletePending"}
	deletePending    = workload.Expect{Status: http.StatusConflict, Code: "DeletePending"}
	fileLockConflict = workload.Expect{Status: http.StatusConflict, Code: "FileLockConflict"}
	notFound         = workload.Expect{Status: http.StatusNotFound}
)

// lockedRange is the byte range files.interplay locks over SMB and writes
// over REST.
const lockedOff, lockedLen = 0, 16

// interplay is files.interplay: SMB and REST on the same files of an
// account's share. Each actor works on files of its own (so what it holds
// decides what its REST calls must get) and, each iteration, (re)creates
// one over REST, then does one of: hold it over SMB with share none and
// read and write it over REST (409 SharingViolation); open it for delete
// over SMB, set the delete disposition, and get its properties and list
// the share over REST while the handle is open (409 SMBDeletePending or
// DeletePending, not listed), close, and get its properties (404); lock a
// byte range over SMB and Put Range over it (409 FileLockConflict); delete
// it over REST, then open it over SMB and get its properties (not found:
// REST delete leaves no delete-pending file).
type interplay struct {
	r   *rest
	smb *sessions
}

func init() {
	workload.Register("files.interplay", func(w scenarios.Workload, t *target.Target) (workload.Workload, error) {
		r, err := newREST(w.Kind, t)
		if err != nil {
			return nil, err
		}
		if t.FileSMB == nil {
			return nil, errors.New(w.Kind + ": needs the account's key (SMB logs on with it): a connection string with AccountName and AccountKey")
		}
		return &interplay{r: r, smb: accountSessions(t)}, nil
	})
}

// accountSessions are one SMB session per actor to the account's file
// endpoint (SMB 3 with encryption, as Azure Files requires from outside
// its region), logged on with the account name and key; the share is set
// at setup.
func accountSessions(t *target.Target) *sessions {
	l := t.FileSMB
	return &sessions{t: t, addr: l.Addr, creds: smb2.Credentials{User: l.User, Password: l.Password, Domain: "AZURE"},
		opts: smb2.Options{RequireEncryption: true}, trees: map[int]*smb2.Tree{}}
}

func (w *interplay) Setup(ctx context.Context, e *workload.Env) error {
	err := w.r.setupFiles(ctx, e, 0, nil)
	w.smb.share = w.r.name
	return err
}

// interplayFile is actor's file for key k: actors never share one.
func interplayFile(actor, k int) string {
	return "a" + strconv.Itoa(actor) + "-" + workload.KeyName(k)
}

func (w *interplay) Iterate(ctx context.Context, a *workload.Actor) {
	e := a.Env
	name := interplayFile(a.ID, a.Key())
	tr, err := w.smb.tree(ctx, a.ID)
	if err != nil {
		a.Pause(ctx, e.Retry.Base) // no SMB session: nothing was sent
		return
	}
	if op := w.r.createFile(ctx, a, name, lockedOff+lockedLen); op.Outcome != checks.OK {
		return
	}
	smb := recorder{e: e, actor: a.ID}
	switch a.Rand.IntN(4) {
	case 0: // share none
		f, _ := smb.openFile(ctx, tr, name, smb2.FileReadData|smb2.FileWriteData, smb2.ShareNone, smb2.FileOpen)
		if f == nil {
			return
		}
		w.r.get(ctx, a, name, nil, sharingViolation)
		w.r.putRange(ctx, a, name, lockedOff, make([]byte, lockedLen), "", "", sharingViolation)
		smb.closeFile(ctx, f)
	case 1: // delete pending
		f, _ := smb.openFile(ctx, tr, name, smb2.FileReadData|smb2.Delete, smb2.ShareAll, smb2.FileOpen)
		if f == nil {
			return
		}
		op := smb.setDisposition(ctx, f, true)
		if op.Outcome == checks.OK {
			w.getProps(ctx, a, name, smbDeletePending, deletePending)
			w.list(ctx, a, name)
		}
		if cop := smb.closeFile(ctx, f); cop.Outcome == checks.OK && op.Outcome == checks.OK {
			w.getProps(ctx, a, name, notFound)
		}
	case 2: // byte-range lock
		f, _ := smb.openFile(ctx, tr, name, smb2.FileReadData|smb2.FileWriteData, smb2.ShareAll, smb2.FileOpen)
		if f == nil {
			return
		}
		op, _ := smb.do(ctx, OpLock, name, checks.Input{Value: rangeText(lockedOff, lockedLen)}, func(ctx context.Context) (string, error) {
			return "", f.Lock(ctx, smb2.LockElement{Offset: lockedOff, Length: lockedLen, Flags: smb2.LockExclusive | smb2.LockFailImmediately})
		})
		if op.Outcome == checks.OK {
			w.r.putRange(ctx, a, name, lockedOff, make([]byte, lockedLen), "", "", fileLockConflict)
			smb.do(e.AfterStop(ctx), OpUnlock, name, checks.Input{Value: rangeText(lockedOff, lockedLen)}, func(ctx context.Context) (string, error) {
				return "", f.Unlock(ctx, lockedOff, lockedLen)
			})
		}
		smb.closeFile(ctx, f)
	default: // REST delete
		op := a.Do(ctx, workload.Call{Kind: OpRESTDelete, Key: name}, func(ctx context.Context, _ int) (checks.Input, string, error) {
			_, err := w.r.file(name).Delete(ctx, nil)
			return checks.Input{}, "", err
		})
		if op.Outcome != checks.OK {
			return
		}
		if f, _ := smb.openFile(ctx, tr, name, smb2.FileReadData, smb2.ShareAll, smb2.FileOpen); f != nil {
			smb.closeFile(ctx, f)
		}
		w.getProps(ctx, a, name, notFound)
	}
}

func rangeText(off, n int) string { return strconv.Itoa(off) + "+" + strconv.Itoa(n) }

// getProps records Get File Properties of name.
func (w *interplay) getProps(ctx context.Context, a *workload.Actor, name string, expect ...workload.Expect) checks.Op {
	return a.Do(ctx, workload.Call{Kind: OpRESTGetProps, Key: name, Conflicts: expect}, func(ctx context.Context, _ int) (checks.Input, string, error) {
		_, err := w.r.file(name).GetProperties(ctx, nil)
		return checks.Input{}, "", err
	})
}

// list records List Directories and Files of the share's root with name
// as the prefix; the op's value is name when it was listed, else "".
func (w *interplay) list(ctx context.Context, a *workload.Actor, name string) checks.Op {
	return a.Do(ctx, workload.Call{Kind: OpRESTList, Key: name}, func(ctx context.Context, _ int) (checks.Input, string, error) {
		p := w.r.share.NewRootDirectoryClient().NewListFilesAndDirectoriesPager(&directory.ListFilesAndDirectoriesOptions{Prefix: &name})
		var names []string
		for p.More() {
			page, err := p.NextPage(ctx)
			if err != nil {
				return checks.Input{}, "", err
			}
			for _, f := range page.Segment.Files {
				if f.Name != nil && *f.Name == name {
					names = append(names, *f.Name)
				}
			}
		}
		return checks.Input{}, strings.Join(names, " "), nil
	})
}

// Final lists nothing per key (each actor's files are its own); it closes
// the SMB sessions and deletes the share.
func (w *interplay) Final(ctx context.Context, e *workload.Env) error {
	w.smb.close()
	if e.Sharded || e.AttachOnly {
		return nil
	}
	if op := w.r.deleteShare(ctx, e.Actor(checks.ActorFinal)); op.Outcome != checks.OK {
		return target.OpError("delete share "+w.r.name, &op)
	}
	return nil
}
