package runner

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/runner/azurite"
	"github.com/stormcheck/stormcheck/runner/cleanup"
	"github.com/stormcheck/stormcheck/runner/runtest"
	"github.com/stormcheck/stormcheck/runner/target"
	"github.com/stormcheck/stormcheck/scenarios"
)

// Errors say what was tried, what came back and what to do, in one line.

func singleLine(t *testing.T, what, s string) {
	t.Helper()
	if strings.Contains(strings.TrimSpace(s), "\n") || strings.Contains(s, "RESPONSE ") || strings.Contains(s, "-----") {
		t.Errorf("%s is not one line:\n%s", what, s)
	}
}

// TestPlainHTTPServerAnswering501: a real HTTP server on 127.0.0.1 that is
// not a Storage endpoint answers 501 to everything.
func TestPlainHTTPServerAnswering501(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "not implemented", http.StatusNotImplemented)
	}))
	defer srv.Close()
	cs := "DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=" + runtest.AzuriteKey +
		";BlobEndpoint=" + srv.URL + "/devstoreaccount1;"
	sc := runtest.Parse(t, "name: plain\nduration: 1s\ntarget: {kind: connection-string}\nworkloads:\n  - {name: counter, kind: blob.etag-counter}\n")
	_, err := Run(context.Background(), sc, Options{ResultsDir: filepath.Join(t.TempDir(), "r"), Target: target.Options{ConnectionString: cs}})
	if err == nil {
		t.Fatal("a run against a plain HTTP server succeeded")
	}
	msg := err.Error()
	singleLine(t, "the error", msg)
	for _, want := range []string{"PUT " + srv.URL + "/devstoreaccount1/", "HTTP 501 Not Implemented", "not from Azure Storage", "is this a Storage service endpoint?", "BlobEndpoint="} {
		if !strings.Contains(msg, want) {
			t.Errorf("error lacks %q: %s", want, msg)
		}
	}

	// A workload call answered so (here the Blob endpoint is fine and the
	// Table one is the plain server) names the service and its endpoint.
	op := checks.Op{Kind: "table.create", Outcome: checks.Unknown, Out: checks.Output{Status: http.StatusNotImplemented}}
	ce := target.OpError("create table t1", &op)
	if got := ce.Error(); !strings.Contains(got, "create table t1: HTTP 501 Not Implemented, and not from Azure Storage") ||
		!strings.Contains(got, "is this a Table service endpoint? Check the Table endpoint the target names (TableEndpoint= in a connection string, table_url in the scenario)") {
		t.Errorf("got %s", got)
	}
}

// TestNoAnswerSaysWhatToCheck: a setup call nothing answered names the
// transport error and what to check.
func TestNoAnswerSaysWhatToCheck(t *testing.T) {
	op := checks.Op{Kind: "queue.create", Outcome: checks.Unknown, Out: checks.Output{Err: "dial tcp 127.0.0.1:9: connect: connection refused"}}
	got := target.OpError("create queue q1", &op).Error()
	if want := "create queue q1: no answer (unknown): dial tcp 127.0.0.1:9: connect: connection refused; is the target running, and is this its Queue endpoint?"; got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// TestWrongKeyIsOneClearLine: Azurite with a wrong key. The run fails with
// one line naming the answer and the key; cleanup's errors are one line too
// (they were the SDK's 12-line dump).
func TestWrongKeyIsOneClearLine(t *testing.T) {
	ctx, inst := runtest.StartAzurite(t, azurite.Options{WorkDir: t.TempDir()})
	cs := strings.Replace(inst.ConnectionString(), inst.Key, "d3Jvbmcga2V5IHdyb25nIGtleSB3cm9uZyBrZXkgd3Jvbmcga2V5IHdyb25nIGtleQ==", 1)
	sc := runtest.Parse(t, "name: wrongkey\nduration: 1s\ntarget: {kind: connection-string}\nworkloads:\n  - {name: counter, kind: blob.etag-counter}\n")
	var log strings.Builder
	_, err := Run(ctx, sc, Options{ResultsDir: filepath.Join(t.TempDir(), "r"), Log: &log, Target: target.Options{ConnectionString: cs}})
	if err == nil {
		t.Fatal("a run with a wrong key succeeded")
	}
	singleLine(t, "the error", err.Error())
	if !strings.Contains(err.Error(), "HTTP 403 Forbidden (AuthorizationFailure): the service refused the request's signature: check the account key") {
		t.Errorf("error: %v", err)
	}
	for _, line := range strings.Split(log.String(), "\n") {
		if strings.HasPrefix(line, "---") || strings.HasPrefix(line, "RESPONSE") || strings.HasPrefix(line, "<") {
			t.Errorf("the log holds the SDK's dump:\n%s", log.String())
			break
		}
	}

	// Cleanup of a run under the wrong key.
	tgt, err := target.Open(ctx, scenarios.Target{Kind: scenarios.TargetConnectionString}, target.Options{ConnectionString: cs})
	if err != nil {
		t.Fatal(err)
	}
	defer tgt.Close()
	_, _, cerr := cleanup.CleanupRun(ctx, tgt, cleanup.CleanupScope{RunID: "deadbeef"})
	if cerr == nil {
		t.Fatal("cleanup with a wrong key succeeded")
	}
	singleLine(t, "the cleanup error", cerr.Error())
	if !strings.Contains(cerr.Error(), "listing containers scdeadbeef-*: GET http://127.0.0.1:") || !strings.Contains(cerr.Error(), "check the account key") {
		t.Errorf("cleanup error: %v", cerr)
	}
}
