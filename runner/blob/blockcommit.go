package blob

import (
	"context"
	"encoding/base64"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/streaming"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blockblob"
	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/runner/target"
	"github.com/stormcheck/stormcheck/runner/workload"
	"github.com/stormcheck/stormcheck/scenarios"
)

// blockCommit is blob.block-commit: the seeds' "upload blocks in parallel"
// under optimistic concurrency. An actor reads the blob (its ETag), stages
// its blocks in parallel with Put Block (which takes no conditions and
// changes nothing visible), then commits exactly its list with Put Block List
// under If-Match. Only a committed list may ever be read, whole.
type blockCommit struct{ b *Blobs }

func init() {
	workload.Register("blob.block-commit", func(scenarios.Workload, *target.Target) (workload.Workload, error) { return &blockCommit{}, nil })
}

func (w *blockCommit) Setup(ctx context.Context, e *workload.Env) error {
	w.b = newBlobs(e)
	return keysSetup(ctx, e, w.b)
}

// blockID is the base64 id of block i of a commit: fixed width, as Put
// Block List requires for every block of one blob.
func blockID(tag string, i int) string {
	return base64.StdEncoding.EncodeToString([]byte(fmt.Sprintf("%-20.20s%04d", tag, i)))
}

func (w *blockCommit) Iterate(ctx context.Context, a *workload.Actor) {
	key := workload.KeyName(a.Key())
	p := a.Env.Params
	if a.Rand.Float64() < p.ReadFraction {
		w.b.read(ctx, a, key, 0, 0)
		return
	}
	v, ok := w.b.read(ctx, a, key, 0, 0)
	if !ok {
		return
	}
	etag := v.Etag
	// One tag names the commit; block i holds "<i>:<tag>;" and the committed
	// content is exactly the blocks in order (padding in the last one), so a
	// read shows whose list it is and whether it is whole.
	tag := a.Tag()
	ids := make([]string, p.Blocks)
	parts := make([]string, p.Blocks)
	size := 0
	for i := range ids {
		ids[i] = blockID(tag, i)
		parts[i] = fmt.Sprintf("%d:%s;", i, tag)
		size += len(parts[i])
	}
	if size < p.PayloadBytes {
		parts[len(parts)-1] += strings.Repeat(".", p.PayloadBytes-size)
	}
	if !w.stage(ctx, a, key, ids, parts) {
		return
	}
	content := strings.Join(parts, "")
	outer := ctx
	a.Do(ctx, workload.Call{Kind: "blob.commit", Key: key, Conflicts: ConflictPrecondition}, func(ctx context.Context, try int) (checks.Input, string, error) {
		list, value := ids, content
		if try > 1 {
			// Every attempt writes a value no other attempt wrote: a retry
			// commits the same blocks plus a marker block of its own, so a
			// read tells which attempt's list took effect (an unknown
			// commit can be resolved by a later read).
			rtag := a.Tag()
			mid, marker := blockID(rtag, p.Blocks), fmt.Sprintf("retry:%s;", rtag)
			if !w.stage(outer, a, key, []string{mid}, []string{marker}) {
				return checks.Input{IfMatch: etag, Value: content + marker}, "", workload.ErrRetryNotStaged
			}
			list, value = append(append([]string(nil), ids...), mid), content+marker
		}
		in := checks.Input{IfMatch: etag, Value: value}
		et := azcore.ETag(etag)
		_, err := w.b.block(key).CommitBlockList(ctx, list, &blockblob.CommitBlockListOptions{
			AccessConditions: &blob.AccessConditions{ModifiedAccessConditions: &blob.ModifiedAccessConditions{IfMatch: &et}}})
		return in, "", err
	})
}

// stage puts the commit's blocks in parallel, each from its own sub-actor
// (an Actor serves one goroutine), and reports whether all were staged.
func (w *blockCommit) stage(ctx context.Context, a *workload.Actor, key string, ids, parts []string) bool {
	var wg sync.WaitGroup
	okAll := true
	var mu sync.Mutex
	for i := range ids {
		sub := &workload.Actor{ID: a.ID, Env: a.Env, Rand: rand.New(rand.NewPCG(a.Rand.Uint64(), uint64(i)))}
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			op := sub.Do(ctx, workload.Call{Kind: "blob.stage", Key: key}, func(ctx context.Context, _ int) (checks.Input, string, error) {
				_, err := w.b.block(key).StageBlock(ctx, ids[i], streaming.NopCloser(strings.NewReader(parts[i])), nil)
				return checks.Input{Value: ids[i]}, "", err
			})
			if op.Outcome != checks.OK {
				mu.Lock()
				okAll = false
				mu.Unlock()
			}
		}(i)
	}
	wg.Wait()
	return okAll
}

func (w *blockCommit) Final(ctx context.Context, e *workload.Env) error {
	keysFinal(ctx, e, w.b)
	return nil
}
