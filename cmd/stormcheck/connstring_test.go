package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stormcheck/stormcheck/runner/azurite"
	"github.com/stormcheck/stormcheck/runner/targettest"
)

const sasScenario = `name: sas
duration: 2s
target: {kind: connection-string}
workloads:
  - {name: entities, kind: table.etag-counter, actors: 2}
  - {name: messages, kind: queue.work, actors: 3, params: {producers: 1, visibility: 1s}}
`

// TestSASOnlyConnectionStringRun: the usual SAS connection string (the
// endpoints and an account SAS, no AccountName) runs a table and a queue
// workload against Azurite with exit 0, given on the command line or in
// the environment, and the SAS is printed nowhere.
func TestSASOnlyConnectionStringRun(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	inst, err := azurite.Start(ctx, azurite.Options{WorkDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer inst.Stop()
	sas, err := targettest.AccountSAS(inst.Account, inst.Key)
	if err != nil {
		t.Fatal(err)
	}
	sig := sas[strings.Index(sas, "sig="):]
	sig = sig[:strings.IndexByte(sig+"&", '&')]
	cs := "BlobEndpoint=" + inst.BlobURL + ";QueueEndpoint=" + inst.QueueURL + ";TableEndpoint=" + inst.TableURL + ";SharedAccessSignature=" + sas + ";"
	scen := filepath.Join(t.TempDir(), "sas.yaml")
	if err := os.WriteFile(scen, []byte(sasScenario), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("AZURE_STORAGE_CONNECTION_STRING", cs)
	for i, args := range [][]string{{"--connection-string", cs}, {"--target", "connection-string"}} {
		var out, errOut bytes.Buffer
		dir := filepath.Join(t.TempDir(), "out")
		code := run(append([]string{"run", scen, "--progress", "none", "--out", dir}, args...), &out, &errOut)
		all := out.String() + errOut.String()
		if code != exitOK || !strings.Contains(all, "table.update") || !strings.Contains(all, "queue.delete") || strings.Contains(all, sig) {
			t.Errorf("run %d: exit %d\nstdout:\n%s\nstderr:\n%s", i, code, out.String(), errOut.String())
		}
	}
}

// TestMissingEndpointRefused: a connection string that gives a service the
// scenario or the rules use no endpoint is bad input (exit 2), refused
// before anything is made or sent, in one line naming the missing key and
// never the SAS; conform does not run its rules into 34 errors.
func TestMissingEndpointRefused(t *testing.T) {
	const sig = "c2VjcmV0c2VjcmV0"
	scen := filepath.Join(t.TempDir(), "sas.yaml")
	if err := os.WriteFile(scen, []byte(sasScenario), 0o644); err != nil {
		t.Fatal(err)
	}
	blobOnly := "BlobEndpoint=http://127.0.0.1:1/a;SharedAccessSignature=sv=2019-02-02&sig=" + sig
	blobQueue := "BlobEndpoint=http://127.0.0.1:1/a;QueueEndpoint=http://127.0.0.1:2/a;SharedAccessSignature=sv=2019-02-02&sig=" + sig
	out := filepath.Join(t.TempDir(), "r")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", scen, "--progress", "none", "--out", out, "--connection-string", blobQueue}, "has no TableEndpoint and no AccountName to derive it from, and the table service is used"},
		{[]string{"run", scen, "--progress", "none", "--out", out, "--connection-string", blobOnly}, "has no QueueEndpoint and no AccountName to derive it from, and the queue service is used"},
		{[]string{"conform", "--out", out, "--connection-string", blobQueue}, "has no TableEndpoint and no AccountName to derive it from, and the table service is used"},
		{[]string{"conform", "--out", out, "--tags", "table", "--connection-string", blobOnly}, "has no TableEndpoint and no AccountName to derive it from, and the table service is used"},
	} {
		var stdout, stderr bytes.Buffer
		code := run(c.args, &stdout, &stderr)
		all := stdout.String() + stderr.String()
		want := c.args[0] + ": target: the connection string in --connection-string " + c.want
		if code != exitUsage || !strings.Contains(stderr.String(), want) || strings.Count(all, "\n") != 1 || strings.Contains(all, sig) {
			t.Errorf("%v: exit %d, want %d and the one line %q\nstdout:\n%s\nstderr:\n%s", c.args[:2], code, exitUsage, want, stdout.String(), stderr.String())
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%v: made %s", c.args[:2], out)
		}
	}
}
