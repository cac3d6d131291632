package conform

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/streaming"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blockblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/lease"
	"github.com/stormcheck/stormcheck/conformance/verdict"
	"github.com/stormcheck/stormcheck/runner/cleanup"
	"github.com/stormcheck/stormcheck/runner/connstr"
	"github.com/stormcheck/stormcheck/runner/stage"
	"github.com/stormcheck/stormcheck/runner/target"
	"github.com/stormcheck/stormcheck/scenarios/conformance"
)

// Run runs rules against a target: each rule in its own new
// container (named with the run's prefix, deleted afterwards), rules in
// parallel, steps in order. Every step sends exactly the headers the rule
// writes: they are added to the request by a pipeline policy (see
// withHeaders) rather than through SDK options, which silently drop headers
// an operation does not support, and the raw response is what is judged.
//
// parallel bounds the rules sending requests at once. A rule gives its place
// back while a wait step sleeps and takes one again afterwards, so the long
// waits of slow rules (a lease expiring) overlap whatever parallel is, and
// the whole run takes about as long as its slowest rule, not the sum of
// their waits.
//
// ctx's end (the first Ctrl-C) stops the rules; the cleanup after them is
// a stage of its own (CleanupBound, or CleanupAfterAbort once ctx ended)
// that stopCleanup's end (the next Ctrl-C) stops at once.
func Run(ctx, stopCleanup context.Context, t *target.Target, rules []conformance.Rule, parallel int) []verdict.RuleResult {
	rules, _ = Split(t, rules) // the callers say which were left out (NotRunLine)
	runID := cleanup.NewRunID()
	out := make([]verdict.RuleResult, len(rules))
	sem := make(slots, max(parallel, 1))
	var wg sync.WaitGroup
	for i := range rules {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			out[i] = runRule(ctx, t, &rules[i], fmt.Sprintf("sc%s-r%d", runID, i), sem)
		}(i)
	}
	wg.Wait()
	bound := stage.CleanupBound
	if ctx.Err() != nil {
		bound = stage.CleanupAfterAbort
	}
	st := stage.Begin("cleanup", bound, stage.Cut{Ctx: stopCleanup, Why: stage.ErrInterruptedAgain})
	defer st.Cancel()
	_, _, _ = cleanup.CleanupRun(st.Ctx, t, cleanup.CleanupScope{RunID: runID})
	// Shares are not in the run's cleanup: each file rule's goes in the
	// same stage, under the same deadline and the same Ctrl-C.
	for i := range rules {
		if target.RuleServices(&rules[i]).Has(connstr.File) {
			rr := &RuleRun{T: t, Prefix: fmt.Sprintf("sc%s-r%d", runID, i)}
			rr.deleteShare(st.Ctx)
		}
	}
	return out
}

// ruleRun is one rule's state: its captures and the last ETag seen per
// resource.
type RuleRun struct {
	T        *target.Target
	Prefix   string
	Vars     map[string]string
	LastETag map[string]string
}

// slots bounds how many rules send requests at once (see Conformance).
type slots chan struct{}

// take waits for a place; false when ctx ends first.
func (s slots) take(ctx context.Context) bool {
	select {
	case s <- struct{}{}:
		return true
	case <-ctx.Done():
		return false
	}
}

// give returns a place taken with take.
func (s slots) give() { <-s }

// runRule runs one rule, holding a place of sem except while it waits.
func runRule(ctx context.Context, t *target.Target, r *conformance.Rule, prefix string, sem slots) verdict.RuleResult {
	res := verdict.RuleResult{ID: r.ID, Title: r.Title, Source: r.Source, Tags: r.Tags, Target: t.Desc}
	if !sem.take(ctx) {
		res.Error = "interrupted"
		res.Conclude()
		return res
	}
	held := true
	defer func() {
		if held {
			sem.give()
		}
	}()
	start := time.Now()
	rr := &RuleRun{T: t, Prefix: prefix, Vars: map[string]string{}, LastETag: map[string]string{}}
	if err := rr.setup(ctx, r); err != nil {
		res.Error = "setup: " + target.Redact(err.Error())
		res.Conclude()
		return res
	}
	for i := range r.Steps {
		st := &r.Steps[i]
		if st.Op == "wait" {
			sem.give()
			held = false
			select {
			case <-ctx.Done():
			case <-time.After(st.Wait):
			}
			if ctx.Err() != nil || !sem.take(ctx) {
				res.Error = "interrupted"
				break
			}
			held = true
			continue
		}
		obs, resp, out := rr.Do(ctx, st)
		v := verdict.JudgeStep(i+1, st.Op, rr.expect(st), obs)
		if !v.Pass {
			src := r.StepSource(i)
			v.Reference, v.Source, v.Against = src.Sentence(), src.String(), verdict.AgainstDocumented
			if slices.Contains(src.Kinds(), conformance.EvidenceLive) {
				v.Against = verdict.AgainstLive
			}
		}
		res.Add(v)
		rr.capture(st, resp, out)
		if ctx.Err() != nil {
			res.Error = "interrupted"
			break
		}
	}
	res.Elapsed = time.Since(start)
	res.Conclude()
	if res.Status == verdict.ConformPass {
		// The requests and responses of a rule that behaved as documented
		// are not kept: they would only bloat the results.
		for i := range res.Steps {
			res.Steps[i].Exchange = nil
		}
	}
	return res
}

// setup creates the rule's own resources: its container when it has blob
// or container steps (or no table or queue step), its table when it has
// table steps, its queue when it has queue steps.
func (rr *RuleRun) setup(ctx context.Context, r *conformance.Rule) error {
	uses := target.RuleServices(r)
	if uses.Has(connstr.Blob) {
		if _, err := rr.T.Blob.CreateContainer(ctx, rr.container(""), nil); err != nil {
			return fmt.Errorf("create the rule's container: %w", err)
		}
	}
	if uses.Has(connstr.Table) {
		if err := rr.createTable(ctx); err != nil {
			return fmt.Errorf("create the rule's table: %w", err)
		}
	}
	if uses.Has(connstr.Queue) {
		if err := rr.createQueue(ctx); err != nil {
			return fmt.Errorf("create the rule's queue: %w", err)
		}
	}
	if uses.Has(connstr.File) {
		if err := rr.createShare(ctx); err != nil {
			return fmt.Errorf("create the rule's share: %w", err)
		}
	}
	return nil
}

// container is the name of the container with alias a ("" is the rule's).
func (rr *RuleRun) container(a string) string {
	if a == "" {
		return rr.Prefix
	}
	return rr.Prefix + "-" + strings.ToLower(a)
}

// resource names what a step acts on, for the ETag it last returned.
func (rr *RuleRun) resource(st *conformance.Step) string {
	switch {
	case strings.HasPrefix(st.Op, "table."):
		return "table:" + rr.table(st.Table) + "/" + partitionKey(st.Partition) + "/" + st.Row
	case strings.HasPrefix(st.Op, "queue."):
		return "queue:" + rr.queue(st.Queue)
	case strings.HasPrefix(st.Op, "file."):
		return "file:" + rr.Prefix + "/" + st.File
	}
	return rr.container(st.Container) + "/" + st.Blob
}

// value resolves a step value: a literal, a capture, or a date.
func (rr *RuleRun) value(v *conformance.Value) string {
	switch {
	case v == nil:
		return ""
	case len(v.List) > 0:
		parts := make([]string, len(v.List))
		for i, p := range v.List {
			parts[i] = rr.value(p)
		}
		return strings.Join(parts, ", ")
	case v.Now:
		return time.Now().Add(v.Offset).UTC().Format(http.TimeFormat)
	case v.Ref != "":
		s := rr.Vars[v.Ref]
		if v.Offset != 0 {
			if t, err := http.ParseTime(s); err == nil {
				return t.Add(v.Offset).UTC().Format(http.TimeFormat)
			}
		}
		return s
	}
	return v.Literal
}

// headers are the step's conditions and lease ids, as written.
func (rr *RuleRun) headers(st *conformance.Step) http.Header {
	h := http.Header{}
	set := func(name string, v *conformance.Value) {
		if s := rr.value(v); v != nil {
			h.Set(name, s)
		}
	}
	set("If-Match", st.IfMatch)
	set("If-None-Match", st.IfNoneMatch)
	set("If-Modified-Since", st.IfModifiedSince)
	set("If-Unmodified-Since", st.IfUnmodifiedSince)
	set("x-ms-source-if-match", st.SourceIfMatch)
	set("x-ms-source-if-none-match", st.SourceIfNoneMatch)
	set("x-ms-source-if-modified-since", st.SourceIfModifiedSince)
	set("x-ms-source-if-unmodified-since", st.SourceIfUnmodifiedSince)
	set("x-ms-if-tags", st.IfTags)
	set("x-ms-source-if-tags", st.SourceIfTags)
	set("x-ms-source-lease-id", st.SourceLeaseID)
	if st.BlobTags != nil {
		h.Set("x-ms-tags", *st.BlobTags)
	}
	if st.DeleteSnapshots != nil {
		h.Set("x-ms-delete-snapshots", *st.DeleteSnapshots)
	}
	if !strings.Contains(st.Op, ".lease.") { // lease calls send their ids through the lease client
		set("x-ms-lease-id", st.LeaseID)
	}
	return h
}

func (rr *RuleRun) expect(st *conformance.Step) verdict.StepExpect {
	x := &st.Expect
	e := verdict.StepExpect{Status: x.Status, ErrorCode: x.ErrorCode, ETag: x.ETag.Kind,
		HeadersPresent: x.HeadersPresent, HeadersAbsent: x.HeadersAbsent, Body: x.Body,
		ServiceExpect: verdict.ServiceExpect{Messages: x.Messages, DequeueCount: x.DequeueCount, Text: x.Text,
			MessageID: x.MessageID.Kind, MessageIDRef: rr.Vars[x.MessageID.Var],
			PopReceipt: x.PopReceipt.Kind, PopReceiptRef: rr.Vars[x.PopReceipt.Var],
			NextVisibleIn: x.NextVisibleIn, Properties: x.Properties, Entities: x.Entities, FailedIndex: x.FailedIndex, Parts: x.Parts}}
	if x.ETag.Var != "" {
		e.ETagRef = rr.Vars[x.ETag.Var]
	}
	if len(x.Headers) > 0 {
		e.Headers = map[string]string{}
		for _, h := range x.Headers {
			e.Headers[h.Name] = h.Value.Render(rr.Vars, time.Now())
		}
	}
	return e
}

// callOut is what a call read from the response besides its headers.
type callOut struct {
	// body is the blob content read.
	body string
	// etag is the ETag a body carried (an entity's odata.etag), used when
	// the response has no ETag header.
	etag string
	// svc is what a table or queue response carried.
	svc verdict.ServiceObservation
	// batch is the failed operation of an entity group transaction that
	// was answered 202; nil otherwise.
	batch *batchFailure
	// nextVisible is the message's time-next-visible as an HTTP date
	// (queue.put, queue.get: the first message; queue.update).
	nextVisible string
}

// do sends one step and observes the raw response.
func (rr *RuleRun) Do(ctx context.Context, st *conformance.Step) (verdict.StepObservation, *http.Response, callOut) {
	if conformance.IsRaw(st.Op) {
		return rr.doRaw(ctx, st)
	}
	var resp *http.Response
	actx, cancel := context.WithTimeout(policy.WithCaptureResponse(target.WithHeaders(ctx, rr.headers(st)), &resp), 30*time.Second)
	defer cancel()
	out, err := rr.call(actx, st)
	var re *azcore.ResponseError
	if errors.As(err, &re) && resp == nil {
		resp = re.RawResponse
	}
	if resp == nil {
		obs := verdict.StepObservation{PrevETag: rr.LastETag[rr.resource(st)]}
		if err != nil {
			obs.Err = target.Redact(target.ShortErr(err))
		}
		return obs, nil, out
	}
	obs := rr.observe(st, resp, out, err)
	if re == nil && err != nil && resp.StatusCode < 300 {
		// The service answered but the SDK could not make sense of it: a
		// finding, shown with the raw status line (judged as such, not on
		// the status code, which claimed a success the body does not
		// support).
		obs.Err, obs.RawStatus = target.Redact(target.ShortErr(err)), resp.Status
		obs.Status, obs.ErrorCode, obs.BatchStatus = 0, "", 0
	}
	var sent *string
	if st.Op == "blob.put" || st.Op == "blob.stage" {
		sent = st.Body
		if sent == nil {
			sent = new(string) // an empty body
		}
	}
	obs.Exchange = sdkExchange(resp, re != nil, out.body, sent)
	return obs, resp, out
}

// observe is what a step's response shows the judge; err is the error of
// reading it, if any. It records the ETag as the resource's last.
func (rr *RuleRun) observe(st *conformance.Step, resp *http.Response, out callOut, err error) verdict.StepObservation {
	key := rr.resource(st)
	obs := verdict.StepObservation{PrevETag: rr.LastETag[key]}
	obs.Status = resp.StatusCode
	obs.ErrorCode = resp.Header.Get("x-ms-error-code")
	obs.ETag = resp.Header.Get("ETag")
	if obs.ETag == "" {
		obs.ETag = out.etag
	}
	obs.Body = out.body
	obs.ServiceObservation = out.svc
	if b := out.batch; b != nil {
		// The transaction was answered (202) but one operation failed:
		// judge that operation's answer, as the REST reference describes
		// it, and keep the outer status in the Actual.
		obs.BatchStatus, obs.Status, obs.ErrorCode = resp.StatusCode, b.status, b.code
	}
	obs.Headers = map[string]string{}
	for k, v := range resp.Header {
		if len(v) > 0 {
			obs.Headers[strings.ToLower(k)] = v[0]
		}
	}
	if err != nil && resp.StatusCode < 300 && conformance.IsRaw(st.Op) {
		obs.Err, obs.RawStatus = target.Redact(target.ShortErr(err)), resp.Status
		obs.Status, obs.ErrorCode = 0, ""
	}
	if obs.ETag != "" {
		rr.LastETag[key] = obs.ETag
	}
	return obs
}

func (rr *RuleRun) capture(st *conformance.Step, resp *http.Response, out callOut) {
	if resp == nil {
		return
	}
	msg := out.svc.Message
	if msg == nil {
		msg = &verdict.ConformMessage{}
	}
	for what, name := range st.Capture {
		switch what {
		case "etag":
			rr.Vars[name] = resp.Header.Get("ETag")
			if rr.Vars[name] == "" {
				rr.Vars[name] = out.etag
			}
		case "message_id":
			rr.Vars[name] = msg.ID
		case "pop_receipt":
			rr.Vars[name] = msg.PopReceipt
		case "next_visible":
			rr.Vars[name] = out.nextVisible
		case "lease_id":
			rr.Vars[name] = resp.Header.Get("x-ms-lease-id")
		case "last_modified":
			rr.Vars[name] = resp.Header.Get("Last-Modified")
		case "request_id":
			rr.Vars[name] = resp.Header.Get("x-ms-request-id")
		case "copy_id":
			rr.Vars[name] = resp.Header.Get("x-ms-copy-id")
		case "snapshot":
			rr.Vars[name] = resp.Header.Get("x-ms-snapshot")
		}
	}
}

// call performs the step's operation with the SDK, passing only what the
// operation itself needs; conditions travel as headers (see headers).
func (rr *RuleRun) call(ctx context.Context, st *conformance.Step) (callOut, error) {
	switch {
	case strings.HasPrefix(st.Op, "table."):
		return rr.tableCall(ctx, st)
	case strings.HasPrefix(st.Op, "queue."):
		return rr.queueCall(ctx, st)
	case strings.HasPrefix(st.Op, "blob.append"):
		return callOut{}, rr.appendCall(ctx, st)
	case strings.HasPrefix(st.Op, "file."):
		return rr.fileCall(ctx, st)
	case strings.HasPrefix(st.Op, "blob.page."):
		return rr.pageCall(ctx, st)
	}
	body, err := rr.blobCall(ctx, st)
	return callOut{body: body}, err
}

// blobCall performs a blob or container step.
func (rr *RuleRun) blobCall(ctx context.Context, st *conformance.Step) (string, error) {
	c := rr.T.Blob.NewContainerClient(rr.container(st.Container))
	b := c.NewBlockBlobClient(st.Blob)
	if st.Snapshot != nil {
		sb, err := b.WithSnapshot(rr.value(st.Snapshot))
		if err != nil {
			return "", err
		}
		b = sb
	}
	// Every op whose step takes metadata: sends it (nil: none).
	var meta map[string]*string
	for k, v := range st.Metadata {
		if meta == nil {
			meta = map[string]*string{}
		}
		meta[k] = &v
	}
	body := ""
	if st.Body != nil {
		body = *st.Body
	}
	leaseID := rr.value(st.LeaseID)
	if leaseID == "" {
		leaseID = rr.value(st.ProposedLeaseID) // an acquire may propose its id
	}
	dur := int32(-1)
	if st.Duration != nil {
		dur = int32(*st.Duration)
	}
	var breakOpts struct {
		blob      *lease.BlobBreakOptions
		container *lease.ContainerBreakOptions
	}
	if st.BreakPeriod != nil {
		p := int32(*st.BreakPeriod)
		breakOpts.blob = &lease.BlobBreakOptions{BreakPeriod: &p}
		breakOpts.container = &lease.ContainerBreakOptions{BreakPeriod: &p}
	}
	var err error
	switch st.Op {
	case "blob.put":
		_, err = b.Upload(ctx, streaming.NopCloser(strings.NewReader(body)), &blockblob.UploadOptions{Metadata: meta})
	case "blob.get":
		r, gerr := b.DownloadStream(ctx, nil)
		if gerr != nil || r.Body == nil {
			return "", gerr
		}
		defer r.Body.Close()
		data, rerr := io.ReadAll(r.Body)
		return string(data), rerr
	case "blob.getprops":
		_, err = b.GetProperties(ctx, nil)
	case "blob.setmeta":
		_, err = b.SetMetadata(ctx, meta, nil)
	case "blob.delete":
		_, err = b.Delete(ctx, nil)
	case "blob.setprops":
		_, err = b.SetHTTPHeaders(ctx, blob.HTTPHeaders{}, nil)
	case "blob.snapshot":
		_, err = b.CreateSnapshot(ctx, &blob.CreateSnapshotOptions{Metadata: meta})
	case "blob.copy":
		src := c.NewBlobClient(st.Source).URL() // same account: no SAS needed with shared key
		_, err = b.StartCopyFromURL(ctx, src, &blob.StartCopyFromURLOptions{Metadata: meta})
	case "blob.abortcopy":
		_, err = b.AbortCopyFromURL(ctx, rr.value(st.CopyID), nil)
	case "blob.stage":
		_, err = b.StageBlock(ctx, blockID64(st.BlockID), streaming.NopCloser(strings.NewReader(body)), nil)
	case "blob.commit":
		ids := make([]string, len(st.Blocks))
		for i, id := range st.Blocks {
			ids[i] = blockID64(id)
		}
		_, err = b.CommitBlockList(ctx, ids, &blockblob.CommitBlockListOptions{Metadata: meta})
	case "blob.lease.acquire", "blob.lease.renew", "blob.lease.change", "blob.lease.release", "blob.lease.break":
		lc, lerr := lease.NewBlobClient(b, leaseOpt(leaseID))
		if lerr != nil {
			return "", lerr
		}
		switch st.Op {
		case "blob.lease.acquire":
			_, err = lc.AcquireLease(ctx, dur, nil)
		case "blob.lease.renew":
			_, err = lc.RenewLease(ctx, nil)
		case "blob.lease.change":
			_, err = lc.ChangeLease(ctx, rr.value(st.ProposedLeaseID), nil)
		case "blob.lease.release":
			_, err = lc.ReleaseLease(ctx, nil)
		case "blob.lease.break":
			_, err = lc.BreakLease(ctx, breakOpts.blob)
		}
	case "container.create":
		_, err = c.Create(ctx, &container.CreateOptions{Metadata: meta})
	case "container.delete":
		_, err = c.Delete(ctx, nil)
	case "container.getprops":
		_, err = c.GetProperties(ctx, nil)
	case "container.setmeta":
		_, err = c.SetMetadata(ctx, &container.SetMetadataOptions{Metadata: meta})
	case "container.getacl":
		_, err = c.GetAccessPolicy(ctx, nil)
	case "container.setacl":
		_, err = c.SetAccessPolicy(ctx, nil)
	case "container.lease.acquire", "container.lease.renew", "container.lease.change", "container.lease.release", "container.lease.break":
		lc, lerr := lease.NewContainerClient(c, containerLeaseOpt(leaseID))
		if lerr != nil {
			return "", lerr
		}
		switch st.Op {
		case "container.lease.acquire":
			_, err = lc.AcquireLease(ctx, dur, nil)
		case "container.lease.renew":
			_, err = lc.RenewLease(ctx, nil)
		case "container.lease.change":
			_, err = lc.ChangeLease(ctx, rr.value(st.ProposedLeaseID), nil)
		case "container.lease.release":
			_, err = lc.ReleaseLease(ctx, nil)
		case "container.lease.break":
			_, err = lc.BreakLease(ctx, breakOpts.container)
		}
	default:
		return "", fmt.Errorf("stormcheck cannot run op %s yet", st.Op)
	}
	return "", err
}

// blockID64 is the base64 form Put Block and Put Block List require of a
// rule's block id.
func blockID64(id string) string { return base64.StdEncoding.EncodeToString([]byte(id)) }

func leaseOpt(id string) *lease.BlobClientOptions {
	if id == "" {
		return nil
	}
	return &lease.BlobClientOptions{LeaseID: &id}
}

func containerLeaseOpt(id string) *lease.ContainerClientOptions {
	if id == "" {
		return nil
	}
	return &lease.ContainerClientOptions{LeaseID: &id}
}

// ConformServices are the services a conformance run of rules sends to
// (see ruleRun.setup).
func ConformServices(rules []conformance.Rule) connstr.Services {
	var uses connstr.Services
	for i := range rules {
		uses |= target.RuleServices(&rules[i])
	}
	// The file rules run only where there is a file endpoint (Split): a
	// string without one is not refused for them.
	return uses &^ connstr.Of(connstr.File)
}
