// Package runtest holds what the runner's tests share: a managed Azurite
// for a test, scenarios parsed from text, a target opened on an Azurite,
// the scan for secrets in a results folder, and tables and queues planted
// beside a run's. Only tests import it.
package runtest

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azqueue"
	"github.com/klauspost/compress/zstd"
	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/runner/azurite"
	"github.com/stormcheck/stormcheck/runner/target"
	"github.com/stormcheck/stormcheck/scenarios"
)

// startAzurite starts an Azurite the harness does not manage, stopped when
// the test ends; ctx bounds the test.
func StartAzurite(t *testing.T, o azurite.Options) (context.Context, *azurite.Instance) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	t.Cleanup(cancel)
	inst, err := azurite.Start(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { inst.Stop() })
	return ctx, inst
}

// azuriteKey is the public Azurite development key: even a public key must
// never appear in results, because the same code handles real keys.
const AzuriteKey = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="

func Parse(t *testing.T, src string) *scenarios.Scenario {
	t.Helper()
	sc, err := scenarios.Parse("test.yaml", []byte(src))
	if err != nil {
		t.Fatalf("scenario: %v", err)
	}
	return sc
}

func AssertNoSecrets(t *testing.T, dir string) {
	t.Helper()
	_ = filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return nil
		}
		b, _ := os.ReadFile(p)
		if strings.HasSuffix(p, ".zst") { // compressed bytes can hold any three letters: scan the records
			d, err := zstd.NewReader(nil)
			if err != nil {
				t.Fatal(err)
			}
			b, err = d.DecodeAll(b, nil)
			d.Close()
			if err != nil {
				t.Errorf("%s: %v", p, err)
			}
		}
		if strings.HasSuffix(p, ".hlog") { // a histogram is compressed bytes in base64: scan all but that field
			b = hlogWithoutHistograms(b)
		}
		if strings.HasSuffix(p, ".json") { // the same in summary.json's "histograms"
			b = JSONWithoutHistograms(b)
		}
		for _, s := range []string{AzuriteKey, "AccountKey=", "sig=", "Bearer ", "eyJ"} { // eyJ: a JWT's first bytes
			if strings.Contains(string(b), s) {
				t.Errorf("%s contains %q", p, s[:min(len(s), 12)])
			}
		}
		return nil
	})
}

func AllPass(rs []checks.Result) bool {
	for _, r := range rs {
		if r.Verdict != checks.Pass {
			return false
		}
	}
	return true
}

// histogramField is a summary's encoded histogram: "latency" or
// "corrected" with a base64 string value (compressed bytes, where any three
// letters occur by chance: "eyJ" failed a run once). A value with any other
// character (a JWT's dots) is not one, and stays to be scanned.
var histogramField = regexp.MustCompile(`"(latency|corrected)":\s*"[A-Za-z0-9+/=]*"`)

// jsonWithoutHistograms is a JSON file with its encoded histograms' values
// emptied; every other field stays.
func JSONWithoutHistograms(b []byte) []byte {
	return histogramField.ReplaceAll(b, []byte(`"$1":""`))
}

// hlogWithoutHistograms is an hlog with each interval line's last field
// (the histogram, compressed and in base64, where any three letters occur
// by chance: "eyJ" failed a run once) cut off; comments and the other
// fields stay.
func hlogWithoutHistograms(b []byte) []byte {
	var out []byte
	for _, line := range strings.SplitAfter(string(b), "\n") {
		if !strings.HasPrefix(line, "#") && !strings.HasPrefix(line, "\"") {
			if i := strings.LastIndexByte(line, ','); i >= 0 {
				line = line[:i+1] + "\n"
			}
		}
		out = append(out, line...)
	}
	return out
}

// openTestTarget opens a target on inst the way a run with a connection
// string does.
func OpenTarget(ctx context.Context, t *testing.T, inst *azurite.Instance) *target.Target {
	t.Helper()
	tg, err := target.Open(ctx, scenarios.Target{Kind: scenarios.TargetConnectionString}, target.Options{ConnectionString: inst.ConnectionString()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tg.Close() })
	return tg
}

// foreignTableAndQueue creates a table and a queue stormcheck did not make,
// which cleanup must leave alone.
func ForeignTableAndQueue(ctx context.Context, t *testing.T, inst *azurite.Instance) (*aztables.ServiceClient, *azqueue.ServiceClient) {
	t.Helper()
	tcred, _ := aztables.NewSharedKeyCredential(inst.Account, inst.Key)
	tsvc, err := aztables.NewServiceClientWithSharedKey(inst.TableURL, tcred, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tsvc.CreateTable(ctx, "someoneelses", nil); err != nil {
		t.Fatal(err)
	}
	qcred, _ := azqueue.NewSharedKeyCredential(inst.Account, inst.Key)
	qsvc, err := azqueue.NewServiceClientWithSharedKeyCredential(inst.QueueURL, qcred, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := qsvc.CreateQueue(ctx, "someone-elses", nil); err != nil {
		t.Fatal(err)
	}
	return tsvc, qsvc
}

// listTablesAndQueues lists every table and queue of the account.
func ListTablesAndQueues(ctx context.Context, t *testing.T, tsvc *aztables.ServiceClient, qsvc *azqueue.ServiceClient) (tables, queues []string) {
	t.Helper()
	tp := tsvc.NewListTablesPager(nil)
	for tp.More() {
		page, err := tp.NextPage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, tb := range page.Tables {
			tables = append(tables, *tb.Name)
		}
	}
	qp := qsvc.NewListQueuesPager(nil)
	for qp.More() {
		page, err := qp.NextPage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range page.Queues {
			queues = append(queues, *q.Name)
		}
	}
	return tables, queues
}
