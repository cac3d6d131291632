package runner

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stormcheck/stormcheck/runner/azurite"
	"github.com/stormcheck/stormcheck/runner/connstr"
	"github.com/stormcheck/stormcheck/runner/runtest"
	"github.com/stormcheck/stormcheck/runner/target"
	"github.com/stormcheck/stormcheck/runner/targettest"
	"github.com/stormcheck/stormcheck/scenarios"
)

// dialRecorder is the dialer of a test's HTTP client: it records every
// address dialled, sends those of mapped names to the loopback address they
// stand for, dials other loopback addresses as they are, and refuses the
// rest, so nothing of a test leaves the machine and the record shows where
// each call was addressed.
type dialRecorder struct {
	mu     sync.Mutex
	dialed []string
	to     map[string]string // address as dialled -> loopback address
}

func (d *dialRecorder) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	d.mu.Lock()
	d.dialed = append(d.dialed, addr)
	to, mapped := d.to[addr]
	d.mu.Unlock()
	if !mapped {
		host, _, _ := net.SplitHostPort(addr)
		if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
			return nil, fmt.Errorf("test dialer: %s is not a test endpoint: refused", addr)
		}
		to = addr
	}
	return (&net.Dialer{Timeout: 5 * time.Second}).DialContext(ctx, network, to)
}

// addrs is the set of addresses dialled since the last call, sorted.
func (d *dialRecorder) addrs() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	set := map[string]bool{}
	for _, a := range d.dialed {
		set[a] = true
	}
	d.dialed = nil
	var out []string
	for a := range set {
		out = append(out, a)
	}
	sort.Strings(out)
	return out
}

func (d *dialRecorder) client() *http.Client {
	return &http.Client{Transport: &http.Transport{Proxy: nil, DialContext: d.dial, DisableKeepAlives: true}}
}

// standIn is a loopback listener standing in for one service's endpoint:
// a reverse proxy to that service of a real Azurite, keeping the Host
// header (Azurite reads the account from a production-style host name),
// which records the requests it passes.
type standIn struct {
	srv  *httptest.Server
	mu   sync.Mutex
	seen []seenRequest
}

type seenRequest struct {
	path, host string
	auth       string // the Authorization scheme and account ("SharedKey devstoreaccount1"), "" without one
	sig        bool   // the query carries a SAS signature
	status     int
	service    string
}

func newStandIn(t *testing.T, service, tgt string) *standIn {
	u, err := url.Parse(tgt)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = ""
	s := &standIn{}
	rp := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(u)
			pr.Out.Host = pr.In.Host
		},
		Transport: &http.Transport{Proxy: nil},
		ModifyResponse: func(resp *http.Response) error {
			r := resp.Request
			auth, _, _ := strings.Cut(r.Header.Get("Authorization"), ":")
			s.mu.Lock()
			s.seen = append(s.seen, seenRequest{path: r.URL.Path, host: r.Host, auth: auth, sig: r.URL.Query().Get("sig") != "",
				status: resp.StatusCode, service: service})
			s.mu.Unlock()
			return nil
		},
	}
	s.srv = httptest.NewServer(rp)
	t.Cleanup(s.srv.Close)
	return s
}

func (s *standIn) addr() string { return s.srv.Listener.Addr().String() }

func (s *standIn) take() []seenRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.seen
	s.seen = nil
	return out
}

// TestConnectionStringTrafficGoesWhereItSays: for every form of connection
// string, each service's calls arrive at the endpoint the string names (or
// derives), carrying its credential, and the dialer sees no other address.
// Loopback stand-ins in front of a real Azurite take the place of each
// endpoint; a derived host name (ACCOUNT.blob.core.windows.net) is mapped
// to its stand-in by the dialer, which records the name dialled.
func TestConnectionStringTrafficGoesWhereItSays(t *testing.T) {
	ctx, inst := runtest.StartAzurite(t, azurite.Options{WorkDir: t.TempDir()})
	sas, err := targettest.AccountSAS(inst.Account, inst.Key)
	if err != nil {
		t.Fatal(err)
	}
	blob, queue, table := newStandIn(t, "blob", inst.BlobURL), newStandIn(t, "queue", inst.QueueURL), newStandIn(t, "table", inst.TableURL)
	standIns := map[connstr.Service]*standIn{connstr.Blob: blob, connstr.Queue: queue, connstr.Table: table}
	path := func(s *standIn) string { return "http://" + s.addr() + "/" + inst.Account }
	acct, key := "AccountName="+inst.Account, "AccountKey="+inst.Key
	explicit := "BlobEndpoint=" + path(blob) + ";QueueEndpoint=" + path(queue) + ";TableEndpoint=" + path(table)
	derived := func(suffix, port string) map[connstr.Service]string {
		return map[connstr.Service]string{connstr.Blob: inst.Account + ".blob." + suffix + ":" + port,
			connstr.Queue: inst.Account + ".queue." + suffix + ":" + port, connstr.Table: inst.Account + ".table." + suffix + ":" + port}
	}
	named := map[connstr.Service]string{connstr.Blob: blob.addr(), connstr.Queue: queue.addr(), connstr.Table: table.addr()}
	dev := func(host string) map[connstr.Service]string {
		return map[connstr.Service]string{connstr.Blob: host + ":10000", connstr.Queue: host + ":10001", connstr.Table: host + ":10002"}
	}
	withNamed := func(m map[connstr.Service]string, s ...connstr.Service) map[connstr.Service]string {
		out := map[connstr.Service]string{}
		for k, v := range m {
			out[k] = v
		}
		for _, x := range s {
			out[x] = named[x]
		}
		return out
	}
	for i, c := range []struct {
		name, cs string
		sas      bool
		// dial is the address each service's calls must be dialled at.
		dial map[connstr.Service]string
	}{
		{"account key, explicit endpoints", acct + ";" + key + ";" + explicit, false, named},
		{"account key, derived endpoints", "DefaultEndpointsProtocol=http;" + acct + ";" + key, false, derived("core.windows.net", "80")},
		{"account key, EndpointSuffix", "DefaultEndpointsProtocol=http;" + acct + ";" + key + ";EndpointSuffix=storage.test", false, derived("storage.test", "80")},
		{"account key, BlobEndpoint named, the others derived", "DefaultEndpointsProtocol=http;" + acct + ";" + key + ";BlobEndpoint=" + path(blob), false,
			withNamed(derived("core.windows.net", "80"), connstr.Blob)},
		{"SAS with AccountName", "DefaultEndpointsProtocol=http;" + acct + ";SharedAccessSignature=" + sas, true, derived("core.windows.net", "80")},
		{"SAS with AccountName and TableEndpoint", "DefaultEndpointsProtocol=http;" + acct + ";SharedAccessSignature=" + sas + ";TableEndpoint=" + path(table), true,
			withNamed(derived("core.windows.net", "80"), connstr.Table)},
		{"SAS without AccountName", explicit + ";SharedAccessSignature=?" + sas + ";", true, named},
		{"UseDevelopmentStorage", "UseDevelopmentStorage=true", false, dev("127.0.0.1")},
		{"UseDevelopmentStorage with a proxy", "UseDevelopmentStorage=true;DevelopmentStorageProxyUri=http://devproxy", false, dev("devproxy")},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := &dialRecorder{to: map[string]string{}}
			for s, a := range c.dial {
				d.to[a] = standIns[s].addr()
			}
			tg, err := target.Open(ctx, scenarios.Target{Kind: scenarios.TargetConnectionString},
				target.Options{ConnectionString: c.cs, HTTPClient: d.client(), Uses: connstr.Of(connstr.Blob, connstr.Queue, connstr.Table)})
			if err != nil {
				t.Fatal(target.Redact(err.Error()))
			}
			defer tg.Close()
			if got := d.addrs(); len(got) != 0 {
				t.Fatalf("opening the target dialled %v", got)
			}
			if tg.Blob == nil || tg.Queue == nil || tg.Table == nil {
				t.Fatalf("clients: blob %v, queue %v (%v), table %v (%v)", tg.Blob != nil, tg.Queue != nil, tg.QueuesErr, tg.Table != nil, tg.TablesErr)
			}
			name := fmt.Sprintf("wire%d", i)
			calls := map[connstr.Service]func() error{
				connstr.Blob: func() error {
					if _, err := tg.Blob.CreateContainer(ctx, name, nil); err != nil {
						return err
					}
					_, err := tg.Blob.DeleteContainer(ctx, name, nil)
					return err
				},
				connstr.Queue: func() error {
					if _, err := tg.Queue.CreateQueue(ctx, name, nil); err != nil {
						return err
					}
					_, err := tg.Queue.DeleteQueue(ctx, name, nil)
					return err
				},
				connstr.Table: func() error {
					if _, err := tg.Table.CreateTable(ctx, name, nil); err != nil {
						return err
					}
					_, err := tg.Table.DeleteTable(ctx, name, nil)
					return err
				},
			}
			for _, s := range []connstr.Service{connstr.Blob, connstr.Queue, connstr.Table} {
				if err := calls[s](); err != nil {
					t.Fatalf("%s: %s", s, target.Redact(err.Error()))
				}
				if got := d.addrs(); !slices.Equal(got, []string{c.dial[s]}) {
					t.Errorf("%s calls dialled %v, want only %s", s, got, c.dial[s])
				}
				for o, si := range standIns {
					seen := si.take()
					if o != s {
						if len(seen) != 0 {
							t.Errorf("%s calls reached the %s stand-in: %v", s, o, seen)
						}
						continue
					}
					if len(seen) != 2 {
						t.Errorf("%s stand-in saw %d requests, want create and delete: %v", s, len(seen), seen)
					}
					for _, r := range seen {
						wantHost, _, _ := net.SplitHostPort(c.dial[s])
						if h, _, _ := net.SplitHostPort(r.host); h != wantHost && r.host != wantHost {
							t.Errorf("%s request with Host %s, want %s", s, r.host, wantHost)
						}
						sharedKey := r.auth == "SharedKey "+inst.Account || r.auth == "SharedKeyLite "+inst.Account // (aztables signs Lite)
						if c.sas && (!r.sig || r.auth != "") || !c.sas && (r.sig || !sharedKey) {
							t.Errorf("%s request authorised by %q, SAS %v; want the string's credential", s, r.auth, r.sig)
						}
						if r.status >= 300 {
							t.Errorf("%s request %s answered %d", s, r.path, r.status)
						}
					}
				}
			}
		})
	}

	// The string of the report: AccountName, a SAS and TableEndpoint on
	// loopback, the default protocol (https). The table calls go to the
	// named endpoint and nowhere else; a blob call goes to the derived
	// endpoint (refused by the test's dialer: it never leaves the machine).
	t.Run("the string of the report", func(t *testing.T) {
		d := &dialRecorder{to: map[string]string{}}
		cs := acct + ";SharedAccessSignature=" + sas + ";TableEndpoint=" + path(table)
		tg, err := target.Open(ctx, scenarios.Target{Kind: scenarios.TargetConnectionString},
			target.Options{ConnectionString: cs, HTTPClient: d.client(), Uses: connstr.Of(connstr.Blob, connstr.Table)})
		if err != nil {
			t.Fatal(target.Redact(err.Error()))
		}
		defer tg.Close()
		if _, err := tg.Table.CreateTable(ctx, "wirereport", nil); err != nil {
			t.Fatal(target.Redact(err.Error()))
		}
		if got := d.addrs(); !slices.Equal(got, []string{table.addr()}) {
			t.Errorf("table calls dialled %v, want only %s", got, table.addr())
		}
		if seen := table.take(); len(seen) != 1 || !seen[0].sig || seen[0].status != 201 {
			t.Errorf("the table stand-in saw %v, want one create with the SAS, answered 201", seen)
		}
		_, err = tg.Blob.CreateContainer(ctx, "wirereport", nil)
		if want := inst.Account + ".blob.core.windows.net:443"; err == nil || !slices.Equal(d.addrs(), []string{want}) {
			t.Errorf("a blob call: err %v; want it dialled at %s (derived) and refused", err, want)
		}
		if seen := blob.take(); len(seen) != 0 {
			t.Errorf("the blob stand-in saw %v", seen)
		}
	})
}

// tablesAndQueues is a run of a table and a queue workload on a
// connection-string target.
const tablesAndQueues = `
name: sas
duration: 2s
target: {kind: connection-string}
workloads:
  - {name: entities, kind: table.etag-counter, actors: 2}
  - {name: messages, kind: queue.work, actors: 3, params: {producers: 1, visibility: 1s}}
`

// TestConnectionStringRefusedBeforeSending: a string that gives a service
// the caller uses no endpoint (a SAS with BlobEndpoint only, for a table
// workload), or no credential, is ErrBadConnectionString from
// CheckConnectionString and OpenTarget alike, naming the missing key and
// holding no secret, and nothing is dialled.
func TestConnectionStringRefusedBeforeSending(t *testing.T) {
	const sig = "c2VjcmV0c2VjcmV0"
	sc := runtest.Parse(t, tablesAndQueues)
	if got, want := target.ScenarioServices(sc), connstr.Of(connstr.Blob, connstr.Queue, connstr.Table); got != want {
		t.Errorf("ScenarioServices: %v, want %v", got.List(), want.List())
	}
	for _, c := range []struct{ cs, want string }{
		{"BlobEndpoint=http://127.0.0.1:1/a;SharedAccessSignature=sv=2019-02-02&sig=" + sig, "has no QueueEndpoint and no AccountName to derive it from, and the queue service is used"},
		{"BlobEndpoint=http://127.0.0.1:1/a;QueueEndpoint=http://127.0.0.1:2/a;SharedAccessSignature=sv=2019-02-02&sig=" + sig, "has no TableEndpoint and no AccountName to derive it from, and the table service is used"},
		{"BlobEndpoint=http://127.0.0.1:1/a;QueueEndpoint=http://127.0.0.1:2/a;TableEndpoint=http://127.0.0.1:3/a", "carries no credential"},
		{"UseDevelopmentStorage=true;AccountKey=" + sig, "takes no other key than DevelopmentStorageProxyUri (it has AccountKey)"},
		{"AccountName=a;AccountKey=" + sig + ";TabelEndpoint=http://127.0.0.1:3/a", "unknown key TabelEndpoint"},
	} {
		d := &dialRecorder{}
		o := target.Options{ConnectionString: c.cs, HTTPClient: d.client(), Uses: target.ScenarioServices(sc)}
		_, err := target.Open(context.Background(), sc.Target, o)
		for _, err := range []error{target.CheckConnectionString(sc.Target, o), err} {
			if !errors.Is(err, target.ErrBadConnectionString) || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), sig) {
				t.Errorf("%q: %v, want ErrBadConnectionString saying %q", target.Redact(c.cs), err, c.want)
			}
		}
		if got := d.addrs(); len(got) != 0 {
			t.Errorf("%q: dialled %v", target.Redact(c.cs), got)
		}
	}
}

// TestSASOnlyConnectionStringRunsTablesAndQueues: the usual SAS form (the
// three endpoints and an account SAS, no AccountName) runs a table and a
// queue workload against Azurite: every check passes, the run's
// resources are gone afterwards, only the three named endpoints are
// dialled, and the SAS is nowhere in the results.
func TestSASOnlyConnectionStringRunsTablesAndQueues(t *testing.T) {
	ctx, inst := runtest.StartAzurite(t, azurite.Options{WorkDir: t.TempDir()})
	sas, err := targettest.AccountSAS(inst.Account, inst.Key)
	if err != nil {
		t.Fatal(err)
	}
	cs := "BlobEndpoint=" + inst.BlobURL + ";QueueEndpoint=" + inst.QueueURL + ";TableEndpoint=" + inst.TableURL + ";SharedAccessSignature=" + sas
	sc := runtest.Parse(t, tablesAndQueues)
	d := &dialRecorder{}
	hc := &http.Client{Transport: &http.Transport{Proxy: nil, DialContext: d.dial, MaxIdleConnsPerHost: 16, IdleConnTimeout: 4 * time.Second}}
	dir := t.TempDir() + "/results"
	sum, err := Run(ctx, sc, Options{ResultsDir: dir, Target: target.Options{ConnectionString: cs, HTTPClient: hc}})
	if err != nil {
		t.Fatal(target.Redact(err.Error()))
	}
	if !runtest.AllPass(sum.Checks) || len(sum.Checks) == 0 {
		t.Errorf("checks: %+v", sum.Checks)
	}
	ok := map[string]int64{}
	defer func() { t.Logf("successful calls: %v", ok) }()
	for _, w := range sum.Workloads {
		for _, o := range w.Ops {
			ok[w.Name+"/"+o.Op] += o.Outcomes["ok"]
		}
	}
	if ok["entities/table.update"] == 0 || ok["messages/queue.put"] == 0 || ok["messages/queue.delete"] == 0 {
		t.Errorf("successful calls by workload and op: %v; want table updates, queue puts and deletes", ok)
	}
	var want []string
	for _, u := range []string{inst.BlobURL, inst.QueueURL, inst.TableURL} {
		want = append(want, target.HostOf(u))
	}
	sort.Strings(want)
	if got := d.addrs(); !slices.Equal(got, want) {
		t.Errorf("the run dialled %v, want exactly the named endpoints %v", got, want)
	}
	c, err := targettest.Open(inst.ConnectionString())
	if err != nil {
		t.Fatal(err)
	}
	if left, err := c.List(ctx); err != nil || len(left) != 0 {
		t.Errorf("after the run the account holds %v (err %v), want nothing", left, err)
	}
	runtest.AssertNoSecrets(t, dir)
}
