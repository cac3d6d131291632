package runner

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"hash"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/streaming"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/bloberror"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blockblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/service"
	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/reports"
	scblob "github.com/stormcheck/stormcheck/runner/blob"
	"github.com/stormcheck/stormcheck/runner/target"
	"github.com/stormcheck/stormcheck/runner/workload"
	"github.com/stormcheck/stormcheck/scenarios"
)

// BenchmarkBlobClients measures what stormcheck costs per call against the
// SDK it drives and against the wire itself: the clients run the same
// etag-counter loop (Get Blob, then Put Blob If-Match the ETag read) with
// the same concurrency, one after the other in rotating slices, against the
// fast loopback Blob endpoint of blobfixture_test.go (a child process, so
// the figures are the clients' alone):
//
//   - stormcheck: the blob.etag-counter workload through the closed-loop
//     executor, the actors, classification, the history file and the live
//     metrics, exactly as a run does;
//   - azblob: a bare loop of the same azblob calls;
//   - azblob-cancellable: the same loop with a cancellable context per
//     goroutine, as a loop that honours Ctrl-C or a timeout has;
//   - azblob-signed: the same loop signed by stormcheck's Shared Key signer
//     (runner/sharedkey) and sending small bodies in one write, as
//     stormcheck's client does: stormcheck over it is the harness's own
//     work, recording, metrics and all;
//   - raw: net/http with Shared Key signing by hand, the floor.
//
// It reports CPU per call, allocations and bytes per call and calls per
// second per core of each, and the ratios to the bare azblob loop.
//
//	go test -run '^$' -bench BlobClients -benchtime 4x ./runner/
//
// STORMCHECK_BENCH_CLIENT=stormcheck (or azblob, azblob-cancellable, azblob-signed, raw) runs one client only,
// for -cpuprofile / -memprofile. With STORMCHECK_FIXTURE_CPU=1 and the
// benchmark pinned to another CPU with one P,
//
//	STORMCHECK_FIXTURE_CPU=1 taskset -c 0 go test -run '^$' -bench BlobClients -benchtime 12x -cpu 1 ./runner/
//
// each client owns a core and is never idle (it waits on nothing but its
// own CPU), so its CPU per call is its work alone; scripts/clientcpu.sh
// runs two clients that way under perf and says where the difference goes.
func BenchmarkBlobClients(b *testing.B) {
	const actors, keys = 8, 8
	const slice = 2 * time.Second
	ctx := context.Background()
	dir := b.TempDir()
	endpoint := startFixture(b)
	cs := "DefaultEndpointsProtocol=http;AccountName=" + fixtureAccount + ";AccountKey=" + fixtureKey + ";BlobEndpoint=" + endpoint + ";"

	// stormcheck, set up the way Run sets up a workload.
	sc, err := scenarios.Parse("bench.yaml", []byte(`
name: bench
duration: 1h
workloads:
  - {name: counter, kind: blob.etag-counter, actors: 8, keys: 8}
`))
	if err != nil {
		b.Fatal(err)
	}
	t, err := target.Open(ctx, sc.Target, target.Options{ConnectionString: cs, MaxConns: actors + 16})
	if err != nil {
		b.Fatal(err)
	}
	defer t.Close()
	start := time.Now()
	m := reports.NewMetrics(reports.MetricsOptions{HlogDir: filepath.Join(dir, HlogDir), Start: start, Workloads: []string{"counter"}})
	rec, err := workload.NewRecorder(filepath.Join(dir, HistoryFile), start, m)
	if err != nil {
		b.Fatal(err)
	}
	defer m.Close()
	defer rec.Close()
	env := workload.NewEnv(sc.Workloads[0], sc, rec, t, "bench")
	wl := &scblob.EtagCounter{}
	if err := wl.Setup(ctx, env); err != nil {
		b.Fatal(err)
	}

	// The bare azblob loop: its own client, default options, the same
	// HTTP transport settings, the same container and blobs.
	cred, err := service.NewSharedKeyCredential(fixtureAccount, fixtureKey)
	if err != nil {
		b.Fatal(err)
	}
	bare, err := service.NewClientWithSharedKeyCredential(endpoint, cred, &service.ClientOptions{ClientOptions: azcore.ClientOptions{Transport: target.NewHTTPClient(actors + 16)}})
	if err != nil {
		b.Fatal(err)
	}
	bareBlobs := &scblob.Blobs{C: bare.NewContainerClient(env.Prefix)}
	// The bare loop again, signed by stormcheck's Shared Key signer and
	// sending small bodies in one write, as stormcheck's client does: what
	// stormcheck costs over it is the harness's own work.
	signed, err := target.SharedKeyBlobClient(bare.URL(), fixtureAccount, fixtureKey, &service.ClientOptions{
		ClientOptions: azcore.ClientOptions{Transport: target.CountingTransport{Next: target.NewHTTPClient(actors + 16)}}})
	if err != nil {
		b.Fatal(err)
	}
	signedBlobs := &scblob.Blobs{C: signed.NewContainerClient(env.Prefix)}

	var bareLost, cancelLost, signedLost atomic.Int64
	raw := &rawClient{hc: target.NewHTTPClient(actors + 16), base: endpoint + "/" + env.Prefix + "/"}
	raw.key, _ = base64.StdEncoding.DecodeString(fixtureKey)

	type client struct {
		name                 string
		run                  func(d time.Duration) int64 // calls made
		calls, allocs, bytes int64
		wall, cpu            time.Duration
		// perRound is each round's CPU per call (ns).
		perRound []float64
		// gc is the Go runtime's estimate of the CPU its collector used.
		gc float64
	}
	clients := []*client{
		{name: "stormcheck", run: func(d time.Duration) int64 { n, _ := harnessLoop(ctx, env, wl, actors, d); return n }},
		{name: "azblob", run: func(d time.Duration) int64 { return bareLoop(ctx, bareBlobs, actors, keys, d, &bareLost, false) }},
		{name: "azblob-cancellable", run: func(d time.Duration) int64 {
			return bareLoop(ctx, bareBlobs, actors, keys, d, &cancelLost, true)
		}},
		{name: "azblob-signed", run: func(d time.Duration) int64 {
			return bareLoop(ctx, signedBlobs, actors, keys, d, &signedLost, false)
		}},
		{name: "raw", run: func(d time.Duration) int64 { return raw.loop(ctx, actors, keys, d) }},
	}
	only := os.Getenv("STORMCHECK_BENCH_CLIENT")
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for j := range clients {
			c := clients[(i+j)%len(clients)] // rotate the order: warm-up and drift favour none
			if only != "" && c.name != only {
				continue
			}
			runtime.GC()
			var m0, m1 runtime.MemStats
			runtime.ReadMemStats(&m0)
			gc0 := gcCPU()
			cpu0, t0 := cpuTime(), time.Now()
			var n int64
			// The client's goroutines carry its name as a profile label:
			// go tool pprof -tagfocus client=stormcheck.
			pprof.Do(ctx, pprof.Labels("client", c.name), func(context.Context) { n = c.run(slice) })
			c.gc += gcCPU() - gc0
			c.wall += time.Since(t0)
			cpu := cpuTime() - cpu0
			c.cpu += cpu
			c.perRound = append(c.perRound, float64(cpu)/float64(max(n, 1)))
			runtime.ReadMemStats(&m1)
			c.calls += n
			c.allocs += int64(m1.Mallocs - m0.Mallocs)
			c.bytes += int64(m1.TotalAlloc - m0.TotalAlloc)
		}
	}
	b.StopTimer()
	// Every call must have been served: ok, or 412 for a lost race.
	ws, _ := m.Summary(time.Since(start))
	for _, w := range ws {
		for _, o := range w.Ops {
			if bad := o.Count - o.Outcomes["ok"] - o.Outcomes["conflict"]; bad > 0 {
				b.Fatalf("stormcheck: %d of %d %s calls failed: %v", bad, o.Count, o.Op, o.Outcomes)
			}
		}
	}
	if n := raw.failed.Load(); n > 0 {
		b.Fatalf("raw: %d calls failed", n)
	}
	// The share of writes that lost the race (412) says whether the three
	// loops raced alike: a lost race costs the SDK an error response.
	lostShare := map[string]float64{}
	for _, w := range ws {
		for _, o := range w.Ops {
			if o.Op == "blob.put" && o.Count > 0 {
				lostShare["stormcheck"] = float64(o.Outcomes["conflict"]) / float64(o.Count)
			}
		}
	}
	var base *client
	for _, c := range clients {
		if c.calls > 0 {
			puts := float64(c.calls) / 2
			switch c.name {
			case "azblob":
				lostShare[c.name] = float64(bareLost.Load()) / puts
			case "azblob-cancellable":
				lostShare[c.name] = float64(cancelLost.Load()) / puts
			case "azblob-signed":
				lostShare[c.name] = float64(signedLost.Load()) / puts
			case "raw":
				lostShare[c.name] = float64(raw.lost.Load()) / puts
			}
			b.ReportMetric(lostShare[c.name], c.name+"-lost/put")
		}
	}
	for _, c := range clients {
		if c.calls == 0 {
			continue
		}
		cpu := float64(c.cpu.Nanoseconds()) / 1e3 / float64(c.calls)
		b.ReportMetric(cpu, c.name+"-cpu-µs/call")
		b.ReportMetric(float64(c.allocs)/float64(c.calls), c.name+"-allocs/call")
		b.ReportMetric(float64(c.bytes)/float64(c.calls), c.name+"-B/call")
		b.ReportMetric(float64(c.calls)/c.cpu.Seconds(), c.name+"-calls/s/core")
		b.ReportMetric(c.gc*1e6/float64(c.calls), c.name+"-gc-cpu-µs/call")
		b.ReportMetric(float64(c.calls)/c.wall.Seconds(), c.name+"-calls/s")
		if c.name == "azblob" {
			base = c
		}
	}
	if base == nil {
		return
	}
	per := func(c *client) (cpu, allocs, bytes float64) {
		n := float64(c.calls)
		return float64(c.cpu) / n, float64(c.allocs) / n, float64(c.bytes) / n
	}
	bc, ba, bb := per(base)
	for _, c := range clients {
		if c == base || c.calls == 0 {
			continue
		}
		cc, ca, cb := per(c)
		// The CPU ratio is the median of the rounds' ratios: each round
		// runs the clients back to back, so a burst of load from other
		// processes on a shared machine moves one round, not the figure.
		ratios := make([]float64, len(c.perRound))
		for i := range ratios {
			ratios[i] = c.perRound[i] / base.perRound[i]
		}
		slices.Sort(ratios)
		b.ReportMetric(ratios[len(ratios)/2], "cpu-"+c.name+"/azblob")
		b.ReportMetric(cc/bc, "cpu-total-"+c.name+"/azblob")
		b.ReportMetric(bc/cc, "calls-per-core-"+c.name+"/azblob")
		b.ReportMetric(ca/ba, "allocs-"+c.name+"/azblob")
		b.ReportMetric(cb/bb, "bytes-"+c.name+"/azblob")
	}
	// stormcheck against the bare loop given a cancellable context, as any
	// loop that honours Ctrl-C or a timeout has (the SDK then registers
	// each request with it): the part of the gap that is the price of a
	// cancellable call rather than of the harness.
	// And against the bare loop signed as stormcheck signs: the harness's
	// own work alone (recording, metrics, classification, the actor).
	byName := map[string]*client{}
	for _, c := range clients {
		byName[c.name] = c
	}
	for _, other := range []string{"azblob-cancellable", "azblob-signed"} {
		h, o := byName["stormcheck"], byName[other]
		if h.calls == 0 || o.calls == 0 {
			continue
		}
		ratios := make([]float64, len(h.perRound))
		for i := range ratios {
			ratios[i] = h.perRound[i] / o.perRound[i]
		}
		slices.Sort(ratios)
		b.ReportMetric(ratios[len(ratios)/2], "cpu-stormcheck/"+other)
	}
}

// rawClient is the floor: Get Blob and If-Match Put Blob with net/http,
// signed with Shared Key by hand, nothing else.
type rawClient struct {
	hc   *http.Client
	base string // endpoint/container/
	key  []byte
	// failed counts answers other than 200, 201 and 412; lost the 412s.
	failed, lost atomic.Int64
}

func (c *rawClient) loop(ctx context.Context, actors, keys int, d time.Duration) int64 {
	var calls atomic.Int64
	var wg sync.WaitGroup
	deadline := time.Now().Add(d)
	for a := 0; a < actors; a++ {
		wg.Add(1)
		go func(seed uint64) {
			defer wg.Done()
			r := rand.New(rand.NewPCG(seed, 2))
			mac := hmac.New(sha256.New, c.key)
			for time.Now().Before(deadline) {
				url := c.base + workload.KeyName(r.IntN(keys))
				resp, err := c.Do(ctx, mac, http.MethodGet, url, "", "")
				calls.Add(1)
				if err != nil {
					c.failed.Add(1)
					continue
				}
				data, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				cur, err := checks.ParseCounterValue(string(data))
				et := resp.Header.Get("ETag")
				if err != nil || resp.StatusCode != http.StatusOK || et == "" {
					c.failed.Add(1)
					continue
				}
				v := checks.CounterValue{N: cur.N + 1, Tag: "r"}.Format(0)
				if resp, err = c.Do(ctx, mac, http.MethodPut, url, et, v); err == nil {
					_, _ = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
				switch {
				case err == nil && resp.StatusCode == http.StatusPreconditionFailed:
					c.lost.Add(1)
				case err != nil || resp.StatusCode != http.StatusCreated:
					c.failed.Add(1)
				}
				calls.Add(1)
			}
		}(uint64(a))
	}
	wg.Wait()
	return calls.Load()
}

func (c *rawClient) Do(ctx context.Context, mac hash.Hash, method, url, ifMatch, body string) (*http.Response, error) {
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, rd)
	if err != nil {
		return nil, err
	}
	h := req.Header
	h["X-Ms-Date"] = []string{time.Now().UTC().Format(http.TimeFormat)}
	h["X-Ms-Version"] = []string{"2025-11-05"}
	if ifMatch != "" {
		h["If-Match"] = []string{ifMatch}
	}
	if method == http.MethodPut {
		h["X-Ms-Blob-Type"] = []string{"BlockBlob"}
		h["Content-Length"] = []string{strconv.Itoa(len(body))}
	}
	mac.Reset()
	io.WriteString(mac, stringToSign(req, fixtureAccount))
	h["Authorization"] = []string{"SharedKey " + fixtureAccount + ":" + base64.StdEncoding.EncodeToString(mac.Sum(nil))}
	return c.hc.Do(req)
}

// bareLoop is the bare azblob loop: read, then If-Match write, counting
// the writes that lost the race (412).
func bareLoop(ctx context.Context, bl *scblob.Blobs, actors, nkeys int, d time.Duration, lost *atomic.Int64, cancellable bool) int64 {
	var calls atomic.Int64
	var wg sync.WaitGroup
	deadline := time.Now().Add(d)
	for a := 0; a < actors; a++ {
		wg.Add(1)
		go func(seed uint64) {
			defer wg.Done()
			ctx := ctx
			if cancellable { // as a loop that honours Ctrl-C or a timeout
				c, cancel := context.WithCancel(ctx)
				defer cancel()
				ctx = c
			}
			r := rand.New(rand.NewPCG(seed, 1))
			for time.Now().Before(deadline) {
				bb := bl.C.NewBlockBlobClient(workload.KeyName(r.IntN(nkeys)))
				resp, err := bb.DownloadStream(ctx, nil)
				calls.Add(1)
				if err != nil {
					continue
				}
				data, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				cur, err := checks.ParseCounterValue(string(data))
				if err != nil || resp.ETag == nil {
					continue
				}
				v := checks.CounterValue{N: cur.N + 1, Tag: "p"}.Format(0)
				_, err = bb.Upload(ctx, streaming.NopCloser(strings.NewReader(v)), &blockblob.UploadOptions{
					AccessConditions: &blob.AccessConditions{ModifiedAccessConditions: &blob.ModifiedAccessConditions{IfMatch: resp.ETag}}})
				if bloberror.HasCode(err, bloberror.ConditionNotMet) {
					lost.Add(1)
				}
				calls.Add(1)
			}
		}(uint64(a))
	}
	wg.Wait()
	return calls.Load()
}

// gcCPU is the CPU the garbage collector has used so far (seconds, the
// runtime's estimate).
func gcCPU() float64 {
	s := []metrics.Sample{{Name: "/cpu/classes/gc/total:cpu-seconds"}}
	metrics.Read(s)
	return s[0].Value.Float64()
}
