package runner

import (
	"bufio"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// The benchmarks' Blob endpoint: a small, fast server with the semantics the
// compared clients exercise (Create Container, Put Blob and Get Blob with
// real ETags and If-Match / If-None-Match, Lease Blob: acquire, renew,
// change, release, break, with lease ids enforced on writes), which checks
// every request's Shared Key signature. It runs in a child process (the test
// binary started again with fixtureEnv set), so the benchmark measures the
// CPU and allocations of the clients alone. It is a benchmark fixture, never
// a stand-in for the service in a test: tests run against Azurite.

const (
	fixtureEnv     = "STORMCHECK_BLOB_FIXTURE"
	fixtureCPUEnv  = "STORMCHECK_FIXTURE_CPU"
	fixtureAccount = "fixtureaccount"
)

// fixtureKey is the fixture's account key (not a secret: loopback only).
var fixtureKey = base64.StdEncoding.EncodeToString([]byte("stormcheck-benchmark-fixture-key"))

// TestMain lets the test binary serve as the fixture's child process.
func TestMain(m *testing.M) {
	if os.Getenv(fixtureEnv) != "" {
		serveFixture()
		return
	}
	os.Exit(m.Run())
}

// serveFixture listens on a free loopback port, prints the Blob endpoint's
// URL and serves until its standard input closes (the benchmark ended or
// died): the child never outlives its parent.
func serveFixture() {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	key, _ := base64.StdEncoding.DecodeString(fixtureKey)
	srv := &http.Server{Handler: newBlobFixture(fixtureAccount, key), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	fmt.Printf("http://%s/%s\n", ln.Addr(), fixtureAccount)
	_, _ = io.Copy(io.Discard, os.Stdin)
}

// startFixture starts the fixture's child process and returns its Blob
// endpoint; the child stops when the benchmark's cleanup closes its input.
func startFixture(tb testing.TB) string {
	tb.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	// STORMCHECK_FIXTURE_CPU pins the fixture to CPUs of its own (a
	// taskset list, e.g. 1), so that with the benchmark itself pinned to
	// the others (taskset -c 0 ... -cpu 1) the client under test owns one
	// core, is never idle and never shares it with the server: its CPU
	// per call is then its work alone (see BenchmarkBlobClients).
	if cpus := os.Getenv(fixtureCPUEnv); cpus != "" {
		taskset, err := exec.LookPath("taskset")
		if err != nil {
			tb.Fatalf("%s=%s needs taskset (util-linux) on PATH: %v", fixtureCPUEnv, cpus, err)
		}
		cmd = exec.Command(taskset, "-c", cpus, os.Args[0], "-test.run=^$")
	}
	cmd.Env = append(os.Environ(), fixtureEnv+"=1", "GOMAXPROCS=1")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		tb.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		stdin.Close()
		_ = cmd.Wait()
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		tb.Fatalf("blob fixture: %v", err)
	}
	return strings.TrimSpace(line)
}

type fixtureBlob struct {
	data     []byte
	etag     string
	modified string // HTTP date
	lease    string // current lease id, "" when none
	until    time.Time
	dur      time.Duration
	infinite bool
	broken   time.Time // a break in progress ends at this time
}

// leased reports whether the blob holds a lease at now.
func (b *fixtureBlob) leased(now time.Time) bool {
	if b.lease == "" {
		return false
	}
	if !b.broken.IsZero() {
		return now.Before(b.broken)
	}
	return b.infinite || now.Before(b.until)
}

type blobFixture struct {
	account string
	key     []byte

	mu         sync.Mutex
	containers map[string]bool
	blobs      map[string]*fixtureBlob
	version    uint64
}

func newBlobFixture(account string, key []byte) *blobFixture {
	return &blobFixture{account: account, key: key, containers: map[string]bool{}, blobs: map[string]*fixtureBlob{}}
}

func (f *blobFixture) fail(w http.ResponseWriter, status int, code string) {
	w.Header().Set("x-ms-error-code", code)
	w.Header().Set("Content-Type", "application/xml")
	w.WriteHeader(status)
	fmt.Fprintf(w, `<?xml version="1.0" encoding="utf-8"?><Error><Code>%s</Code><Message>%s</Message></Error>`, code, code)
}

func (f *blobFixture) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	f.mu.Lock()
	f.version++
	// A request id shaped as the service's (a UUID), so that a history
	// recorded against the fixture is kept by the checkers as a real one is.
	h.Set("x-ms-request-id", fmt.Sprintf("%08x-0000-4000-8000-%012x", f.version>>48, f.version&(1<<48-1)))
	f.mu.Unlock()
	h.Set("x-ms-version", r.Header.Get("x-ms-version"))
	if !f.signed(r) {
		f.fail(w, http.StatusForbidden, "AuthenticationFailed")
		return
	}
	parts := strings.SplitN(strings.TrimPrefix(r.URL.Path, "/"), "/", 3)
	if len(parts) < 2 || parts[0] != f.account {
		f.fail(w, http.StatusBadRequest, "InvalidUri")
		return
	}
	q := r.URL.Query()
	if len(parts) == 2 {
		f.container(w, r, parts[1], q.Get("restype"))
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		f.fail(w, http.StatusBadRequest, "InvalidInput")
		return
	}
	name := parts[1] + "/" + parts[2]
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.containers[parts[1]] {
		f.fail(w, http.StatusNotFound, "ContainerNotFound")
		return
	}
	now := time.Now()
	b := f.blobs[name]
	switch {
	case r.Method == http.MethodGet || r.Method == http.MethodHead:
		if b == nil {
			f.fail(w, http.StatusNotFound, "BlobNotFound")
			return
		}
		if id := r.Header.Get("x-ms-lease-id"); id != "" && (!b.leased(now) || id != b.lease) {
			f.fail(w, http.StatusPreconditionFailed, "LeaseIdMismatchWithBlobOperation")
			return
		}
		if im := r.Header.Get("If-Match"); im != "" && im != "*" && im != b.etag {
			f.fail(w, http.StatusPreconditionFailed, "ConditionNotMet")
			return
		}
		if inm := r.Header.Get("If-None-Match"); inm != "" && (inm == "*" || inm == b.etag) {
			h.Set("ETag", b.etag)
			w.WriteHeader(http.StatusNotModified)
			return
		}
		h.Set("ETag", b.etag)
		h.Set("Last-Modified", b.modified)
		h.Set("Content-Length", strconv.Itoa(len(b.data)))
		h.Set("x-ms-blob-type", "BlockBlob")
		h.Set("Content-Type", "application/octet-stream")
		w.WriteHeader(http.StatusOK)
		if r.Method == http.MethodGet {
			_, _ = w.Write(b.data)
		}
	case r.Method == http.MethodPut && q.Get("comp") == "lease":
		f.lease(w, r, name, b, now)
	case r.Method == http.MethodPut:
		if im := r.Header.Get("If-Match"); im != "" && (b == nil || im != "*" && im != b.etag) {
			f.fail(w, http.StatusPreconditionFailed, "ConditionNotMet")
			return
		}
		if inm := r.Header.Get("If-None-Match"); inm != "" && b != nil && (inm == "*" || inm == b.etag) {
			if inm == "*" {
				f.fail(w, http.StatusConflict, "BlobAlreadyExists")
			} else {
				f.fail(w, http.StatusPreconditionFailed, "ConditionNotMet")
			}
			return
		}
		id := r.Header.Get("x-ms-lease-id")
		if b != nil && b.leased(now) && id == "" {
			f.fail(w, http.StatusPreconditionFailed, "LeaseIdMissing")
			return
		}
		if id != "" && (b == nil || !b.leased(now) || id != b.lease) {
			f.fail(w, http.StatusPreconditionFailed, "LeaseIdMismatchWithBlobOperation")
			return
		}
		if b == nil {
			b = &fixtureBlob{}
			f.blobs[name] = b
		}
		b.data = body
		f.touch(b, now)
		h.Set("ETag", b.etag)
		h.Set("Last-Modified", b.modified)
		w.WriteHeader(http.StatusCreated)
	default:
		f.fail(w, http.StatusBadRequest, "UnsupportedHttpVerb")
	}
}

// touch gives b a new ETag and Last-Modified (under f.mu).
func (f *blobFixture) touch(b *fixtureBlob, now time.Time) {
	f.version++
	b.etag = `"0x` + strconv.FormatUint(f.version, 16) + `"`
	b.modified = now.UTC().Format(http.TimeFormat)
}

func (f *blobFixture) container(w http.ResponseWriter, r *http.Request, name, restype string) {
	if restype != "container" {
		f.fail(w, http.StatusBadRequest, "InvalidQueryParameterValue")
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	switch r.Method {
	case http.MethodPut:
		if f.containers[name] {
			f.fail(w, http.StatusConflict, "ContainerAlreadyExists")
			return
		}
		f.containers[name] = true
		w.WriteHeader(http.StatusCreated)
	case http.MethodDelete:
		if !f.containers[name] {
			f.fail(w, http.StatusNotFound, "ContainerNotFound")
			return
		}
		delete(f.containers, name)
		for k := range f.blobs {
			if strings.HasPrefix(k, name+"/") {
				delete(f.blobs, k)
			}
		}
		w.WriteHeader(http.StatusAccepted)
	default:
		f.fail(w, http.StatusBadRequest, "UnsupportedHttpVerb")
	}
}

// lease runs Lease Blob's actions (under f.mu). A lease lasts 15 to 60 s or
// is infinite (-1); a break ends it after its period.
func (f *blobFixture) lease(w http.ResponseWriter, r *http.Request, name string, b *fixtureBlob, now time.Time) {
	if b == nil {
		f.fail(w, http.StatusNotFound, "BlobNotFound")
		return
	}
	h := w.Header()
	id := r.Header.Get("x-ms-lease-id")
	held := b.leased(now)
	switch r.Header.Get("x-ms-lease-action") {
	case "acquire":
		d, err := strconv.Atoi(r.Header.Get("x-ms-lease-duration"))
		if err != nil || d != -1 && (d < 15 || d > 60) {
			f.fail(w, http.StatusBadRequest, "InvalidHeaderValue")
			return
		}
		proposed := r.Header.Get("x-ms-proposed-lease-id")
		if held && proposed != b.lease {
			f.fail(w, http.StatusConflict, "LeaseAlreadyPresent")
			return
		}
		if proposed == "" {
			f.version++
			proposed = fmt.Sprintf("00000000-0000-4000-8000-%012x", f.version)
		}
		b.dur = time.Duration(d) * time.Second
		b.lease, b.infinite, b.until, b.broken = proposed, d == -1, now.Add(b.dur), time.Time{}
		h.Set("x-ms-lease-id", b.lease)
		w.WriteHeader(http.StatusCreated)
	case "renew":
		if b.lease == "" || id != b.lease || !b.broken.IsZero() {
			f.fail(w, http.StatusConflict, "LeaseIdMismatchWithLeaseOperation")
			return
		}
		b.until = now.Add(b.dur) // the duration it was acquired with
		h.Set("x-ms-lease-id", b.lease)
		w.WriteHeader(http.StatusOK)
	case "change":
		if !held || id != b.lease {
			f.fail(w, http.StatusConflict, "LeaseIdMismatchWithLeaseOperation")
			return
		}
		b.lease = r.Header.Get("x-ms-proposed-lease-id")
		h.Set("x-ms-lease-id", b.lease)
		w.WriteHeader(http.StatusOK)
	case "release":
		if b.lease == "" || id != b.lease {
			f.fail(w, http.StatusConflict, "LeaseIdMismatchWithLeaseOperation")
			return
		}
		b.lease = ""
		w.WriteHeader(http.StatusOK)
	case "break":
		if !held {
			f.fail(w, http.StatusConflict, "LeaseNotPresentWithLeaseOperation")
			return
		}
		period := 0
		if p := r.Header.Get("x-ms-lease-break-period"); p != "" {
			period, _ = strconv.Atoi(p)
		}
		b.broken = now.Add(time.Duration(period) * time.Second)
		h.Set("x-ms-lease-time", strconv.Itoa(period))
		w.WriteHeader(http.StatusAccepted)
	default:
		f.fail(w, http.StatusBadRequest, "InvalidHeaderValue")
	}
}

// signed checks the request's Shared Key signature.
func (f *blobFixture) signed(r *http.Request) bool {
	auth := r.Header.Get("Authorization")
	want := "SharedKey " + f.account + ":"
	if !strings.HasPrefix(auth, want) {
		return false
	}
	got, err := base64.StdEncoding.DecodeString(auth[len(want):])
	if err != nil {
		return false
	}
	mac := hmac.New(sha256.New, f.key)
	mac.Write([]byte(stringToSign(r, f.account)))
	return hmac.Equal(got, mac.Sum(nil))
}

// stringToSign is Shared Key's string to sign for a Blob request (version
// 2009-09-19 and later): the verb, the standard headers (Content-Length
// empty when 0), the x-ms-* headers lower-cased and sorted, and the
// canonicalized resource with its query parameters sorted.
func stringToSign(r *http.Request, account string) string {
	get := func(k string) string {
		if v := r.Header[k]; len(v) > 0 {
			return v[0]
		}
		return ""
	}
	cl := get("Content-Length")
	if cl == "0" {
		cl = ""
	}
	var sb strings.Builder
	for _, s := range []string{r.Method, get("Content-Encoding"), get("Content-Language"), cl, get("Content-Md5"),
		get("Content-Type"), "", get("If-Modified-Since"), get("If-Match"), get("If-None-Match"),
		get("If-Unmodified-Since"), get("Range")} {
		sb.WriteString(s)
		sb.WriteByte('\n')
	}
	var names []string
	for k := range r.Header {
		if lk := strings.ToLower(k); strings.HasPrefix(lk, "x-ms-") {
			names = append(names, lk)
		}
	}
	sort.Strings(names)
	if len(names) == 0 {
		sb.WriteByte('\n')
	}
	for _, n := range names {
		sb.WriteString(n)
		sb.WriteByte(':')
		sb.WriteString(strings.Join(r.Header.Values(n), ","))
		sb.WriteByte('\n')
	}
	sb.WriteString("/" + account + r.URL.EscapedPath())
	q := r.URL.Query()
	keys := make([]string, 0, len(q))
	for k := range q {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		vs := q[k]
		sort.Strings(vs)
		sb.WriteString("\n" + strings.ToLower(k) + ":" + strings.Join(vs, ","))
	}
	return sb.String()
}
