package conform

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/streaming"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/lease"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/share"
	"github.com/stormcheck/stormcheck/runner/connstr"
	"github.com/stormcheck/stormcheck/runner/target"
	"github.com/stormcheck/stormcheck/scenarios/conformance"
)

// The File REST steps (file.*). A rule with file steps gets a share of its
// own (its prefix), created at setup and deleted when the rule ends; its
// files are in the share's root. Only an account's file endpoint answers
// these calls: Split leaves their rules out on other targets, saying why.

// NotRun is a rule the target cannot run, and why.
type NotRun struct {
	ID, Why string
}

// Split divides rules into those t can run and those it cannot: a rule
// with a file step needs the File service, which Azurite, Samba and an
// emulator's connection string do not have.
func Split(t *target.Target, rules []conformance.Rule) (run []conformance.Rule, notRun []NotRun) {
	_, ferr := t.Files()
	for i := range rules {
		if ferr != nil && target.RuleServices(&rules[i]).Has(connstr.File) {
			notRun = append(notRun, NotRun{ID: rules[i].ID, Why: ferr.Error()})
			continue
		}
		run = append(run, rules[i])
	}
	return run, notRun
}

// NotRunLine says in one line which rules were not run and why (the why
// of the first; every file rule has the same one), "" when none. With ids
// false it counts them instead of naming them (the default screen; -v
// names them).
func NotRunLine(nr []NotRun, ids bool) string {
	if len(nr) == 0 {
		return ""
	}
	if !ids {
		return fmt.Sprintf("%d rule(s) need an account and were not run (-v names them): %s", len(nr), nr[0].Why)
	}
	names := make([]string, len(nr))
	for i, n := range nr {
		names[i] = n.ID
	}
	return fmt.Sprintf("%d rule(s) need an account and were not run: %s (%s)", len(nr), nr[0].Why, strings.Join(names, ", "))
}

// share is the rule's share.
func (rr *RuleRun) share() (*share.Client, error) {
	svc, err := rr.T.Files()
	if err != nil {
		return nil, err
	}
	return svc.NewShareClient(rr.Prefix), nil
}

// createShare creates the rule's share.
func (rr *RuleRun) createShare(ctx context.Context) error {
	sh, err := rr.share()
	if err == nil {
		_, err = sh.Create(ctx, nil)
	}
	return err
}

// deleteShare deletes the rule's share and its files; ctx is the cleanup
// stage's (Run), never the rules' (which may be done).
func (rr *RuleRun) deleteShare(ctx context.Context) {
	sh, err := rr.share()
	if err != nil {
		return
	}
	_, _ = sh.Delete(ctx, nil)
}

// fileCall performs a file step.
func (rr *RuleRun) fileCall(ctx context.Context, st *conformance.Step) (callOut, error) {
	sh, err := rr.share()
	if err != nil {
		return callOut{}, err
	}
	f := sh.NewRootDirectoryClient().NewFileClient(st.File)
	body := ""
	if st.Body != nil {
		body = *st.Body
	}
	switch st.Op {
	case "file.create":
		_, err = f.Create(ctx, int64(len(body)), nil)
	case "file.put-range":
		if body == "" {
			return callOut{}, errors.New("file.put-range: an empty body writes no range")
		}
		// The lease id travels as a header (RuleRun.headers), as written.
		_, err = f.UploadRange(ctx, 0, streaming.NopCloser(strings.NewReader(body)), nil)
	case "file.get":
		r, gerr := f.DownloadStream(ctx, nil)
		if gerr != nil || r.Body == nil {
			return callOut{}, gerr
		}
		defer r.Body.Close()
		data, rerr := io.ReadAll(r.Body)
		return callOut{body: string(data)}, rerr
	case "file.getprops":
		_, err = f.GetProperties(ctx, nil)
	case "file.delete":
		_, err = f.Delete(ctx, nil)
	case "file.lease.acquire", "file.lease.release":
		id := rr.value(st.LeaseID)
		if id == "" {
			id = rr.value(st.ProposedLeaseID)
		}
		var opts *lease.FileClientOptions
		if id != "" {
			opts = &lease.FileClientOptions{LeaseID: &id}
		}
		lc, lerr := lease.NewFileClient(f, opts)
		if lerr != nil {
			return callOut{}, lerr
		}
		if st.Op == "file.lease.acquire" {
			_, err = lc.Acquire(ctx, nil)
		} else {
			_, err = lc.Release(ctx, nil)
		}
	default:
		return callOut{}, fmt.Errorf("stormcheck cannot run op %s yet", st.Op)
	}
	return callOut{}, err
}
