package throttle

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"os"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/bloberror"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azqueue"
	"github.com/stormcheck/stormcheck/runner/azurite"
)

// One real Azurite serves every integration test of the package (each
// test uses its own containers, tables and queues); TestMain stops it.
var (
	azOnce sync.Once
	azInst *azurite.Instance
	azDir  string
	azErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if azInst != nil {
		azInst.Stop()
	}
	if azDir != "" {
		os.RemoveAll(azDir)
	}
	os.Exit(code)
}

// startAzurite starts the shared Azurite on first use (as runner tests do,
// installing it into the shared cache if needed).
func startAzurite(t testing.TB) *azurite.Instance {
	t.Helper()
	azOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		if azDir, azErr = os.MkdirTemp("", "stormcheck-throttle-"); azErr != nil {
			return
		}
		azInst, azErr = azurite.Start(ctx, azurite.Options{WorkDir: azDir})
	})
	if azErr != nil {
		t.Fatal(azErr)
	}
	return azInst
}

// uniq makes a resource name unique to this run (tests may run again
// against the same Azurite with -count).
func uniq(name string) string { return fmt.Sprintf("%s%08x", name, rand.Uint32()) }

// testCtx bounds one test.
func testCtx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// logWriter sends the proxy's log to the test log.
type logWriter struct {
	mu   sync.Mutex
	t    testing.TB
	done bool
}

func (w *logWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.done {
		w.t.Log(strings.TrimSpace(string(p)))
	}
	return len(p), nil
}

// startProxy puts a proxy with o in front of inst, closed at test end.
func startProxy(t testing.TB, inst *azurite.Instance, o Options) *Proxy {
	t.Helper()
	o.Blob, o.Queue, o.Table = inst.BlobURL, inst.QueueURL, inst.TableURL
	lw := &logWriter{t: t}
	o.Log = lw
	p, err := Start(testCtx(t), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := p.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
		lw.mu.Lock()
		lw.done = true
		lw.mu.Unlock()
	})
	return p
}

// sdkOptions: a proxy-free transport and no SDK retries, as the runner has.
func sdkOptions() azcore.ClientOptions {
	tr := &http.Transport{Proxy: nil, MaxIdleConnsPerHost: 64, IdleConnTimeout: 4 * time.Second}
	return azcore.ClientOptions{Transport: &http.Client{Transport: tr}, Retry: policy.RetryOptions{MaxRetries: -1}}
}

func tableClient(t testing.TB, inst *azurite.Instance, base, table string) *aztables.Client {
	t.Helper()
	cred, err := aztables.NewSharedKeyCredential(inst.Account, inst.Key)
	if err != nil {
		t.Fatal(err)
	}
	svc, err := aztables.NewServiceClientWithSharedKey(base, cred, &aztables.ClientOptions{ClientOptions: sdkOptions()})
	if err != nil {
		t.Fatal(err)
	}
	return svc.NewClient(table)
}

func blobClient(t *testing.T, inst *azurite.Instance, base string) *azblob.Client {
	t.Helper()
	cred, err := azblob.NewSharedKeyCredential(inst.Account, inst.Key)
	if err != nil {
		t.Fatal(err)
	}
	c, err := azblob.NewClientWithSharedKeyCredential(base, cred, &azblob.ClientOptions{ClientOptions: sdkOptions()})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func queueClient(t *testing.T, inst *azurite.Instance, base, queue string) *azqueue.QueueClient {
	t.Helper()
	cred, err := azqueue.NewSharedKeyCredential(inst.Account, inst.Key)
	if err != nil {
		t.Fatal(err)
	}
	svc, err := azqueue.NewServiceClientWithSharedKeyCredential(base, cred, &azqueue.ClientOptions{ClientOptions: sdkOptions()})
	if err != nil {
		t.Fatal(err)
	}
	return svc.NewQueueClient(queue)
}

// serverBusy reports whether err is the SDK's reading of a 503 ServerBusy,
// the way runner/classify.go files an attempt as throttled.
func serverBusy(err error) bool {
	var re *azcore.ResponseError
	return errors.As(err, &re) && re.StatusCode == http.StatusServiceUnavailable && re.ErrorCode == "ServerBusy"
}

func entityJSON(t testing.TB, pk, rk string) []byte {
	t.Helper()
	b, err := aztablesMarshal(pk, rk)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// burst runs n calls from workers goroutines as fast as they go and
// returns how many were throttled; any other error fails the test.
func burst(t *testing.T, n, workers int, call func(i int) error) (throttled int) {
	t.Helper()
	var mu sync.Mutex
	var wg sync.WaitGroup
	next := 0
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				i := next
				next++
				mu.Unlock()
				if i >= n {
					return
				}
				err := call(i)
				mu.Lock()
				switch {
				case err == nil:
				case serverBusy(err):
					throttled++
				default:
					t.Errorf("call %d: %v", i, err)
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return throttled
}

// TestPartitionOverLimit drives real aztables clients through the proxy:
// a partition over its limit gets 503 ServerBusy, read by the SDK as such,
// while other partitions pass; batches and queries count their entities.
// The proxy reads a virtual clock that stands still during each burst, so
// the counts are exact on any machine: a burst can never outrun or lag the
// refill.
func TestPartitionOverLimit(t *testing.T) {
	inst := startAzurite(t)
	ctx := testCtx(t)
	clock := newManualClock()
	p := startProxy(t, inst, Options{Limits: Limits{PartitionEntities: 20}, Clock: clock.Now})
	table := uniq("partitionlimit")
	tc := tableClient(t, inst, p.TableURL, table)
	if _, err := tc.CreateTable(ctx, nil); err != nil {
		t.Fatal(err)
	}
	var hot, cold int
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { // 60 upserts to one partition at once: 3× its bucket
		defer wg.Done()
		hot = burst(t, 60, 6, func(i int) error {
			_, err := tc.UpsertEntity(ctx, entityJSON(t, "hot", fmt.Sprint(i)), nil)
			return err
		})
	}()
	go func() { // meanwhile 5 upserts to each of 5 other partitions
		defer wg.Done()
		cold = burst(t, 25, 5, func(i int) error {
			_, err := tc.UpsertEntity(ctx, entityJSON(t, fmt.Sprint("cold", i%5), fmt.Sprint(i)), nil)
			return err
		})
	}()
	wg.Wait()
	t.Logf("hot partition: %d of 60 throttled; cold partitions: %d of 25", hot, cold)
	if hot != 40 {
		t.Errorf("hot partition: %d of 60 throttled at one instant, want 40 (20 pass from the full bucket)", hot)
	}
	if cold != 0 {
		t.Errorf("%d requests to partitions under their limit throttled", cold)
	}
	hs := statsOf(p, KindPartition, inst.Account+"/"+table+"/hot")
	if hs.Throttled != int64(hot) || hs.Admitted != int64(60-hot) || hs.FirstThrottle.IsZero() {
		t.Errorf("hot partition stats %+v", hs)
	}
	for i := range 5 {
		if s := statsOf(p, KindPartition, fmt.Sprint(inst.Account, "/", table, "/cold", i)); s.Admitted != 5 || s.Throttled != 0 {
			t.Errorf("cold%d stats %+v", i, s)
		}
	}

	// Keys with quotes pass through unchanged, signature and all.
	if _, err := tc.UpsertEntity(ctx, []byte(`{"PartitionKey":"o'brien","RowKey":"it's"}`), nil); err != nil {
		t.Fatalf("upsert with quoted keys through the proxy: %v", err)
	}
	if e, err := tc.GetEntity(ctx, "o'brien", "it's", nil); err != nil || !strings.Contains(string(e.Value), `"RowKey":"it's"`) {
		t.Fatalf("get with quoted keys through the proxy: %v %s", err, e.Value)
	}
	if s := statsOf(p, KindPartition, inst.Account+"/"+table+"/o'brien"); s.Admitted != 2 {
		t.Errorf("quoted partition stats %+v, want 2 admitted", s)
	}

	// A batch counts its operations; a query the entities it returns.
	var actions []aztables.TransactionAction
	for i := range 5 {
		actions = append(actions, aztables.TransactionAction{ActionType: aztables.TransactionTypeAdd, Entity: entityJSON(t, "batch", fmt.Sprint(i))})
	}
	if _, err := tc.SubmitTransaction(ctx, actions, nil); err != nil {
		t.Fatal(err)
	}
	if got := queryCount(ctx, t, tc, "PartitionKey eq 'batch'"); got != 5 {
		t.Fatalf("query returned %d entities, want 5", got)
	}
	if s := statsOf(p, KindPartition, inst.Account+"/"+table+"/batch"); s.Admitted != 10 {
		t.Errorf("batch partition admitted %d, want 5 (batch) + 5 (query)", s.Admitted)
	}

	// A query's entities are debited after the response: 30 returned
	// against a 20-deep bucket leaves it in debt, and the next request to
	// the partition is throttled.
	for _, from := range []int{0, 15} {
		actions = actions[:0]
		for i := from; i < from+15; i++ {
			actions = append(actions, aztables.TransactionAction{ActionType: aztables.TransactionTypeAdd, Entity: entityJSON(t, "debt", fmt.Sprint(i))})
		}
		if _, err := tc.SubmitTransaction(ctx, actions, nil); err != nil {
			t.Fatal(err)
		}
		clock.Advance(1500 * time.Millisecond) // refill
	}
	if got := queryCount(ctx, t, tc, "PartitionKey eq 'debt' and RowKey ge ''"); got != 30 {
		t.Fatalf("query returned %d entities, want 30", got)
	}
	if _, err := tc.GetEntity(ctx, "debt", "0", nil); !serverBusy(err) {
		t.Errorf("the request after a 30-entity query on a 20/s partition: %v, want 503 ServerBusy", err)
	}
	// The other partitions are not affected.
	if _, err := tc.GetEntity(ctx, "cold0", "0", nil); err != nil {
		t.Errorf("cold0 after the debt: %v", err)
	}
}

func queryCount(ctx context.Context, t *testing.T, tc *aztables.Client, filter string) int {
	t.Helper()
	n := 0
	for pager := tc.NewListEntitiesPager(&aztables.ListEntitiesOptions{Filter: &filter}); pager.More(); {
		page, err := pager.NextPage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		n += len(page.Entities)
	}
	return n
}

// TestBlobQueueAndAccount checks the XML 503s of blob and queue, the
// account limit's message, and that requests pass through unchanged
// (signatures over odd names stay valid).
func TestBlobQueueAndAccount(t *testing.T) {
	inst := startAzurite(t)
	ctx := testCtx(t)
	clock := newManualClock() // stands still: each burst arrives at one instant
	p := startProxy(t, inst, Options{Limits: Limits{BlobRequests: 10, QueueMessages: 10}, Clock: clock.Now})
	bc := blobClient(t, inst, p.BlobURL)
	cont := uniq("throttleblobs")
	if _, err := bc.CreateContainer(ctx, cont, nil); err != nil {
		t.Fatal(err)
	}
	odd := "dir/ünï code+1 (copy)'s.txt"
	if _, err := bc.UploadBuffer(ctx, cont, odd, []byte("through the proxy"), nil); err != nil {
		t.Fatalf("upload of %q through the proxy: %v", odd, err)
	}
	dl, err := bc.DownloadStream(ctx, cont, odd, nil)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(dl.Body)
	dl.Body.Close()
	if string(got) != "through the proxy" {
		t.Fatalf("read back %q", got)
	}
	var sawBlobCode atomic.Bool
	hot := burst(t, 40, 4, func(i int) error {
		_, err := bc.UploadBuffer(ctx, cont, "hot", []byte("x"), nil)
		if bloberror.HasCode(err, bloberror.ServerBusy) {
			sawBlobCode.Store(true)
		}
		return err
	})
	if hot != 30 || !sawBlobCode.Load() {
		t.Errorf("hot blob: %d of 40 throttled (bloberror ServerBusy seen: %v), want 30 (10 pass from the full bucket)", hot, sawBlobCode.Load())
	}
	if _, err := bc.UploadBuffer(ctx, cont, "cold", []byte("x"), nil); err != nil {
		t.Errorf("another blob: %v", err)
	}

	q := queueClient(t, inst, p.QueueURL, uniq("throttlequeue"))
	if _, err := q.Create(ctx, nil); err != nil {
		t.Fatal(err)
	}
	hotq := burst(t, 40, 4, func(i int) error {
		_, err := q.EnqueueMessage(ctx, "m", nil)
		return err
	})
	if hotq != 30 {
		t.Errorf("hot queue: %d of 40 throttled, want 30", hotq)
	}
	// A get asks for 5 and is charged the 3 it returns.
	qname := uniq("throttlecount")
	q2 := queueClient(t, inst, p.QueueURL, qname)
	if _, err := q2.Create(ctx, nil); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if _, err := q2.EnqueueMessage(ctx, "m", nil); err != nil {
			t.Fatal(err)
		}
	}
	r, err := q2.DequeueMessages(ctx, &azqueue.DequeueMessagesOptions{NumberOfMessages: to.Ptr[int32](5)})
	if err != nil || len(r.Messages) != 3 {
		t.Fatalf("dequeue: %d messages, %v", len(r.Messages), err)
	}
	if s := statsOf(p, KindQueue, inst.Account+"/"+qname); s.Admitted != 6 || s.Throttled != 0 {
		t.Errorf("queue stats %+v, want 3 puts + 3 got", s)
	}

	// The account limit: many blobs, each under its own limit.
	pa := startProxy(t, inst, Options{Limits: Limits{AccountRequests: 10}, Clock: clock.Now})
	ba := blobClient(t, inst, pa.BlobURL)
	var sawAccountMsg atomic.Bool
	busy := burst(t, 40, 4, func(i int) error {
		_, err := ba.UploadBuffer(ctx, cont, fmt.Sprint("many", i), []byte("x"), nil)
		var re *azcore.ResponseError
		if errors.As(err, &re) && strings.Contains(re.Error(), MsgAccountOps) {
			sawAccountMsg.Store(true)
		}
		return err
	})
	if busy != 30 || !sawAccountMsg.Load() {
		t.Errorf("account limit: %d of 40 throttled, account message seen: %v; want 30", busy, sawAccountMsg.Load())
	}
	if s := statsOf(pa, KindAccount, inst.Account); s.Throttled != int64(busy) {
		t.Errorf("account stats %+v, want %d throttled", s, busy)
	}
}

// TestRampThrottlesLaterThanBurst: with warm-up on, a burst straight to
// the limit is throttled early, a ramp to the same final rate late or
// never. The requests go through the proxy to Azurite one at a time, in
// the order of their scheduled arrivals, with the proxy's virtual clock set
// to each one's arrival: the proxy must refuse exactly the arrivals the
// bucket model refuses, however slowly the machine sends them.
func TestRampThrottlesLaterThanBurst(t *testing.T) {
	inst := startAzurite(t)
	ctx := testCtx(t)
	const rate, warm = 50.0, 4 * time.Second
	clock := newManualClock()
	p := startProxy(t, inst, Options{Limits: Limits{PartitionEntities: rate}, Warmup: warm, Clock: clock.Now})
	table := uniq("rampburst")
	tc := tableClient(t, inst, p.TableURL, table)
	if _, err := tc.CreateTable(ctx, nil); err != nil {
		t.Fatal(err)
	}
	// Burst: 50/s from the start, for 3 s.
	var burstAt []float64
	for i := range int(3 * rate) {
		burstAt = append(burstAt, float64(i)/rate)
	}
	// Ramp: linearly from 0 to 50/s over the warm-up (6.25 t² requests by
	// t), then 50/s for 1 s.
	var rampAt []float64
	k := rate / warm.Seconds() / 2
	for i := 1; ; i++ {
		s := math.Sqrt(float64(i) / k)
		if s > warm.Seconds() {
			break
		}
		rampAt = append(rampAt, s)
	}
	for i := 1; i <= int(rate); i++ {
		rampAt = append(rampAt, warm.Seconds()+float64(i)/rate)
	}
	type arrival struct {
		pk  string
		i   int
		at  float64
		got bool // throttled through the proxy
	}
	var all []*arrival
	for i, s := range burstAt {
		all = append(all, &arrival{pk: "burst", i: i, at: s})
	}
	for i, s := range rampAt {
		all = append(all, &arrival{pk: "ramp", i: i, at: s})
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].at < all[j].at })
	for _, a := range all {
		clock.Set(time.Duration(a.at * float64(time.Second)))
		_, err := tc.UpsertEntity(ctx, entityJSON(t, a.pk, fmt.Sprint(a.i)), nil)
		if err != nil && !serverBusy(err) {
			t.Fatalf("%s %d: %v", a.pk, a.i, err)
		}
		a.got = serverBusy(err)
	}
	// What the bucket model refuses, arrival by arrival.
	model := map[string][]bool{}
	for pk, ats := range map[string][]float64{"burst": burstAt, "ramp": rampAt} {
		b := newBucket(rate, time.Second, warm, t0)
		for _, s := range ats {
			model[pk] = append(model[pk], !try(b, at(s), 1))
		}
	}
	first := map[string]float64{"burst": -1, "ramp": -1}
	n := map[string]int{}
	for _, a := range all {
		if a.got != model[a.pk][a.i] {
			t.Errorf("%s arrival %d at %.3f s: proxy throttled=%v, the bucket model says %v", a.pk, a.i, a.at, a.got, model[a.pk][a.i])
		}
		if a.got {
			n[a.pk]++
			if first[a.pk] < 0 {
				first[a.pk] = a.at
			}
		}
	}
	bf, rf, bn, rn := first["burst"], first["ramp"], n["burst"], n["ramp"]
	t.Logf("burst: %d requests, %d throttled, first at %.3f s; ramp: %d requests, %d throttled, first at %.3f s",
		len(burstAt), bn, bf, len(rampAt), rn, rf)
	if bf < 0 || bf > 0.3 {
		t.Errorf("burst first throttled at %.3f s, want within 0.3 s (the cold bucket empties in about 0.26 s)", bf)
	}
	if rf >= 0 && rf <= bf {
		t.Errorf("ramp throttled at %.3f s, no later than the burst (%.3f s)", rf, bf)
	}
	if rn*4 > bn {
		t.Errorf("ramp throttled %d times, burst %d: want the ramp far less", rn, bn)
	}
	bs := statsOf(p, KindPartition, inst.Account+"/"+table+"/burst")
	rs := statsOf(p, KindPartition, inst.Account+"/"+table+"/ramp")
	if bs.Throttled != int64(bn) || rs.Throttled != int64(rn) || bs.Admitted != int64(len(burstAt)-bn) {
		t.Errorf("stats burst %+v ramp %+v", bs, rs)
	}
	if want := t0.Add(time.Duration(bf * float64(time.Second))); !bs.FirstThrottle.Equal(want) {
		t.Errorf("burst FirstThrottle %v, want the virtual arrival %v", bs.FirstThrottle, want)
	}
}

// TestDelay: Delay adds its latency to every request. Only the lower bound
// is asserted (no request through the delaying proxy answers sooner than
// the delay): a busy machine can make a request slower, never faster.
func TestDelay(t *testing.T) {
	inst := startAzurite(t)
	ctx := testCtx(t)
	const delay = 150 * time.Millisecond
	table := uniq("delaytable")
	slow := startProxy(t, inst, Options{Delay: delay})
	fast := startProxy(t, inst, Options{})
	median := func(base string) time.Duration {
		tc := tableClient(t, inst, base, table)
		var ds []time.Duration
		for i := range 5 {
			t0 := time.Now()
			_, err := tc.UpsertEntity(ctx, entityJSON(t, "d", fmt.Sprint(i)), nil)
			d := time.Since(t0)
			if err != nil {
				t.Fatal(err)
			}
			if base == slow.TableURL && d < delay {
				t.Errorf("request %d through the delaying proxy took %v, under the delay %v", i, d, delay)
			}
			ds = append(ds, d)
		}
		sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
		return ds[len(ds)/2]
	}
	if _, err := tableClient(t, inst, fast.TableURL, table).CreateTable(ctx, nil); err != nil {
		t.Fatal(err)
	}
	ms, mf := median(slow.TableURL), median(fast.TableURL)
	t.Logf("median upsert: %v with Delay %v, %v without", ms, delay, mf)
}
