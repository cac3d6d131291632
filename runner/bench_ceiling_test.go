package runner

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/streaming"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blockblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/service"
	"github.com/stormcheck/stormcheck/reports"
	"github.com/stormcheck/stormcheck/runner/target"
	"github.com/stormcheck/stormcheck/runner/workload"
)

// BenchmarkCeiling is the figure of record for what a whole run costs at
// the ceiling: Get Blob as fast as each client goes against the fast
// loopback Blob endpoint of blobfixture_test.go (a child process), three
// clients side by side, each at its best actor count, in rotating order:
//
//   - stormcheck: the built binary's whole `run` (a child process: blob.lww
//     with reads only on 8 blobs, closed loop, every call recorded in the
//     history, the metrics, the hlogs, progress lines), its calls and its
//     CPU during the load from its summary.json (ok calls over the active
//     period; client_cpu);
//   - azblob: a bare loop of the same azblob Get Blob, in this process;
//   - raw: net/http with Shared Key signing by hand, the floor.
//
// Each round runs every client at every actor count of ceilingActors for a
// 5 s slice, each slice from a new client with no connections (the binary
// is a new process every time); a client's best count is the one with the most calls/s over the
// rounds. It reports each client's calls/s and CPU per call at its best
// count, and the ratios (calls-X/Y: calls/s over Y's; cpu-total-X/Y: CPU
// per call over Y's).
//
//	scripts/ceiling.sh     (or, by hand, with the endpoint on a core of its own:)
//	STORMCHECK_FIXTURE_CPU=1 taskset -c 0 go test -run '^$' -bench '^BenchmarkCeiling$' -benchtime 2x ./runner/
func BenchmarkCeiling(b *testing.B) {
	const keys = 8
	const slice = 5 * time.Second
	ctx := context.Background()
	dir := b.TempDir()
	endpoint := startFixture(b)
	cs := "DefaultEndpointsProtocol=http;AccountName=" + fixtureAccount + ";AccountKey=" + fixtureKey + ";BlobEndpoint=" + endpoint + ";"
	bin := filepath.Join(dir, "stormcheck")
	if out, err := exec.Command("go", "build", "-o", bin, "../cmd/stormcheck").CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}

	// The bare loops' blobs.
	cred, err := service.NewSharedKeyCredential(fixtureAccount, fixtureKey)
	if err != nil {
		b.Fatal(err)
	}
	maxActors := slices.Max(ceilingActors)
	bare, err := service.NewClientWithSharedKeyCredential(endpoint, cred, &service.ClientOptions{ClientOptions: azcore.ClientOptions{Transport: target.NewHTTPClient(maxActors + 16)}})
	if err != nil {
		b.Fatal(err)
	}
	cont := bare.NewContainerClient("ceiling")
	if _, err := cont.Create(ctx, nil); err != nil {
		b.Fatal(err)
	}
	for k := range keys {
		v := strings.Repeat("v", 16)
		if _, err := cont.NewBlockBlobClient(workload.KeyName(k)).Upload(ctx, streaming.NopCloser(strings.NewReader(v)), &blockblob.UploadOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	raw := &rawGetter{base: endpoint + "/ceiling/"}
	raw.key, _ = base64.StdEncoding.DecodeString(fixtureKey)

	type figures struct{ calls, cpu, wall float64 } // summed over rounds
	type client struct {
		name string
		// run makes calls with n actors for d: calls made, CPU and the
		// period they took.
		run func(n int, d time.Duration) (calls int64, cpu, wall time.Duration)
		at  map[int]*figures
	}
	var failed atomic.Int64
	runs := 0
	clients := []*client{
		{name: "stormcheck", run: func(n int, d time.Duration) (int64, time.Duration, time.Duration) {
			runs++
			return runBinary(b, bin, cs, filepath.Join(dir, fmt.Sprintf("run-%d", runs)), n, keys, d)
		}},
		// Each slice of a bare loop starts with a client and connections of
		// its own, as each run of the binary does: a pool kept warm across
		// slices would count the binary's connection set-up against it alone.
		{name: "azblob", run: func(n int, d time.Duration) (int64, time.Duration, time.Duration) {
			hc := target.NewHTTPClient(n + 16)
			defer hc.CloseIdleConnections()
			return measured(func() int64 {
				sc, err := service.NewClientWithSharedKeyCredential(endpoint, cred, &service.ClientOptions{ClientOptions: azcore.ClientOptions{Transport: hc}})
				if err != nil {
					b.Fatal(err)
				}
				return bareGetLoop(ctx, cont.URL(), sc, n, keys, d, &failed)
			})
		}},
		{name: "raw", run: func(n int, d time.Duration) (int64, time.Duration, time.Duration) {
			raw.hc = target.NewHTTPClient(n + 16)
			defer raw.hc.CloseIdleConnections()
			return measured(func() int64 { return raw.loop(ctx, n, keys, d) })
		}},
	}
	for _, c := range clients {
		c.at = map[int]*figures{}
		for _, n := range ceilingActors {
			c.at[n] = &figures{}
		}
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for j := range clients {
			c := clients[(i+j)%len(clients)] // rotate the order: warm-up and drift favour none
			for k := range ceilingActors {
				n := ceilingActors[(i+k)%len(ceilingActors)]
				runtime.GC()
				calls, cpu, wall := c.run(n, slice)
				f := c.at[n]
				f.calls += float64(calls)
				f.cpu += cpu.Seconds()
				f.wall += wall.Seconds()
			}
		}
	}
	b.StopTimer()
	if n := failed.Load() + raw.failed.Load(); n > 0 {
		b.Fatalf("%d bare calls failed", n)
	}
	best := map[string]*figures{}
	for _, c := range clients {
		bestN := 0
		for _, n := range ceilingActors {
			f := c.at[n]
			if bestN == 0 || f.calls/f.wall > c.at[bestN].calls/c.at[bestN].wall {
				bestN = n
			}
		}
		f := c.at[bestN]
		best[c.name] = f
		b.ReportMetric(f.calls/f.wall, c.name+"-calls/s")
		b.ReportMetric(f.cpu*1e6/f.calls, c.name+"-cpu-µs/call")
		b.ReportMetric(float64(bestN), c.name+"-actors")
	}
	for _, p := range [][2]string{{"stormcheck", "azblob"}, {"stormcheck", "raw"}, {"azblob", "raw"}} {
		x, y := best[p[0]], best[p[1]]
		b.ReportMetric((x.calls/x.wall)/(y.calls/y.wall), "calls-"+p[0]+"/"+p[1])
		b.ReportMetric((x.cpu/x.calls)/(y.cpu/y.calls), "cpu-total-"+p[0]+"/"+p[1])
	}
}

// ceilingActors are the actor counts BenchmarkCeiling tries each client at.
var ceilingActors = []int{4, 8, 16, 32}

// measured runs loop, returning its calls, this process's CPU and the time
// it took.
func measured(loop func() int64) (int64, time.Duration, time.Duration) {
	cpu0, t0 := cpuTime(), time.Now()
	n := loop()
	return n, cpuTime() - cpu0, time.Since(t0)
}

// runBinary runs the built stormcheck's whole run path for d with n actors
// against the endpoint and returns the ok Get Blob calls, the CPU the run
// used during its load and the load's active period, from summary.json.
func runBinary(b *testing.B, bin, cs, res string, n, keys int, d time.Duration) (int64, time.Duration, time.Duration) {
	b.Helper()
	sc := filepath.Join(filepath.Dir(res), "ceiling.yaml")
	if err := os.WriteFile(sc, fmt.Appendf(nil, `name: ceiling
duration: %s
workloads:
  - {name: get, kind: blob.lww, actors: %d, keys: %d, params: {read_fraction: 1}}
checks: []
`, d, n, keys), 0o644); err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command(bin, "run", sc, "--connection-string", cs, "--out", res, "--progress", "lines")
	out, err := cmd.CombinedOutput()
	sum, rerr := reports.ReadSummary(filepath.Join(res, SummaryFile))
	if rerr != nil {
		b.Fatalf("stormcheck run: %v (%v)\n%s", rerr, err, out)
	}
	if len(sum.Workloads) != 1 || len(sum.Workloads[0].Ops) != 1 {
		b.Fatalf("stormcheck run: %d workloads in the summary\n%s", len(sum.Workloads), out)
	}
	w := sum.Workloads[0]
	o := w.Ops[0]
	if bad := o.Count - o.Outcomes["ok"]; bad > 0 {
		b.Fatalf("stormcheck run: %d of %d calls failed: %v\n%s", bad, o.Count, o.Outcomes, out)
	}
	// client_cpu is the run's CPU during the load over the load's wall
	// time and the CPUs it may use (runtime.NumCPU: its affinity, which it
	// shares with this process).
	cpu := time.Duration(sum.ClientCPU * float64(w.Active) * float64(runtime.NumCPU()))
	return o.Count, cpu, w.Active
}

// getLoop runs actors goroutines for d, each calling get with a key drawn
// from its own random source (seeded by stream and its index) as fast as
// it answers; it returns the calls made.
func getLoop(actors, keys int, d time.Duration, stream uint64, newGet func() func(key string)) int64 {
	var calls atomic.Int64
	var wg sync.WaitGroup
	deadline := time.Now().Add(d)
	for a := 0; a < actors; a++ {
		wg.Add(1)
		go func(seed uint64) {
			defer wg.Done()
			r := rand.New(rand.NewPCG(seed, stream))
			get := newGet()
			for time.Now().Before(deadline) {
				get(workload.KeyName(r.IntN(keys)))
				calls.Add(1)
			}
		}(uint64(a))
	}
	wg.Wait()
	return calls.Load()
}

// bareGetLoop is the bare azblob loop: Get Blob, body read, nothing else.
func bareGetLoop(ctx context.Context, url string, sc *service.Client, actors, keys int, d time.Duration, failed *atomic.Int64) int64 {
	cont := sc.NewContainerClient(url[strings.LastIndexByte(url, '/')+1:])
	return getLoop(actors, keys, d, 3, func() func(string) {
		return func(key string) {
			resp, err := cont.NewBlockBlobClient(key).DownloadStream(ctx, nil)
			if err != nil {
				failed.Add(1)
				return
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	})
}

// rawGetter is the floor: Get Blob with net/http, signed with Shared Key
// by hand.
type rawGetter struct {
	hc     *http.Client
	base   string // endpoint/container/
	key    []byte
	failed atomic.Int64
}

func (c *rawGetter) loop(ctx context.Context, actors, keys int, d time.Duration) int64 {
	return getLoop(actors, keys, d, 4, func() func(string) {
		mac := hmac.New(sha256.New, c.key)
		rc := &rawClient{hc: c.hc, key: c.key}
		return func(key string) {
			resp, err := rc.Do(ctx, mac, http.MethodGet, c.base+key, "", "")
			if err != nil {
				c.failed.Add(1)
				return
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				c.failed.Add(1)
			}
		}
	})
}
