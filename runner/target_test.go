package runner

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/service"
	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/runner/azurite"
	"github.com/stormcheck/stormcheck/runner/runtest"
	"github.com/stormcheck/stormcheck/runner/target"
)

// TestConnectionStringTargetCleansOnlyItsOwn runs against an endpoint the
// harness did not start, and checks that cleanup deletes the run's
// containers, tables and queues and leaves everything else alone.
func TestConnectionStringTargetCleansOnlyItsOwn(t *testing.T) {
	ctx, inst := runtest.StartAzurite(t, azurite.Options{WorkDir: t.TempDir()})
	cred, _ := service.NewSharedKeyCredential(inst.Account, inst.Key)
	svc, err := service.NewClientWithSharedKeyCredential(inst.BlobURL, cred, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.CreateContainer(ctx, "someone-elses", nil); err != nil {
		t.Fatal(err)
	}
	tsvc, qsvc := runtest.ForeignTableAndQueue(ctx, t, inst)
	sc := runtest.Parse(t, `
name: external
duration: 2s
target: {kind: connection-string}
workloads:
  - {name: counter, kind: blob.etag-counter, actors: 4}
  - {name: create, kind: blob.create-once, actors: 2}
  - {name: entities, kind: table.etag-counter, actors: 2}
  - {name: messages, kind: queue.work, actors: 3, params: {producers: 1, visibility: 1s}}
`)
	dir := filepath.Join(t.TempDir(), "results")
	sum, err := Run(ctx, sc, Options{ResultsDir: dir, Target: target.Options{ConnectionString: inst.ConnectionString()}})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range sum.Checks {
		if r.Verdict != checks.Pass {
			t.Errorf("%s: %s %s", r.Check, r.Verdict, r.Summary)
		}
	}
	if strings.Contains(sum.Target, inst.Key) || !strings.Contains(sum.Target, "127.0.0.1") {
		t.Errorf("target description %q", sum.Target)
	}
	var names []string
	pager := svc.NewListContainersPager(nil)
	for pager.More() {
		page, err := pager.NextPage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range page.ContainerItems {
			names = append(names, *c.Name)
		}
	}
	if len(names) != 1 || names[0] != "someone-elses" {
		t.Errorf("after cleanup the account holds %v, want only someone-elses", names)
	}
	if tables, queues := runtest.ListTablesAndQueues(ctx, t, tsvc, qsvc); strings.Join(tables, ",") != "someoneelses" || strings.Join(queues, ",") != "someone-elses" {
		t.Errorf("after cleanup: tables %v, queues %v; want only someone else's", tables, queues)
	}
	runtest.AssertNoSecrets(t, dir)
}

// TestEntraIDTarget signs in with a token credential against Azurite's
// OAuth mode over HTTPS, through the same target code a real account uses.
func TestEntraIDTarget(t *testing.T) {
	tmp := t.TempDir()
	certPath, keyPath := writeTestCert(t, tmp)
	ctx, inst := runtest.StartAzurite(t, azurite.Options{WorkDir: tmp, OAuth: true, CertPEM: certPath, KeyPEM: keyPath})
	sc := runtest.Parse(t, `
name: entra
duration: 2s
target:
  kind: entra-id
  account: devstoreaccount1
  blob_url: https://127.0.0.1/devstoreaccount1
workloads:
  - {name: counter, kind: blob.etag-counter, actors: 4}
`)
	sc.Target.BlobURL = inst.BlobURL // the port is only known now
	dir := filepath.Join(tmp, "results")
	sum, err := Run(ctx, sc, Options{ResultsDir: dir, Target: target.Options{
		Credential: azurite.DevTokenCredential(azurite.DevTokenOptions{}), HTTPClient: inst.HTTPClient(),
	}})
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Checks) == 0 || !runtest.AllPass(sum.Checks) {
		t.Fatalf("checks: %+v", sum.Checks)
	}
	if !strings.Contains(sum.Target, "Entra ID") {
		t.Errorf("target %q", sum.Target)
	}
	runtest.AssertNoSecrets(t, dir) // the bearer token must not reach the results either
	for _, w := range sum.Workloads {
		for _, o := range w.Ops {
			if o.Outcomes["ok"] == 0 {
				t.Errorf("%s: no successful %s with the token", w.Name, o.Op)
			}
		}
	}
}

func writeTestCert(t *testing.T, dir string) (string, string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "127.0.0.1"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, DNSNames: []string{"localhost"},
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IsCA: true, BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kb, _ := x509.MarshalECPrivateKey(key)
	certPath, keyPath := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	_ = os.WriteFile(certPath, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600)
	_ = os.WriteFile(keyPath, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}), 0o600)
	return certPath, keyPath
}

// TestAccountKeyTarget signs in with an account name and a key read from an
// environment variable, the way a real account is reached.
func TestAccountKeyTarget(t *testing.T) {
	ctx, inst := runtest.StartAzurite(t, azurite.Options{WorkDir: t.TempDir()})
	sc := runtest.Parse(t, `
name: keyed
duration: 2s
target: {kind: account-key, account: devstoreaccount1, key_env: STORMCHECK_TEST_KEY, blob_url: "http://127.0.0.1/devstoreaccount1"}
workloads:
  - {name: counter, kind: blob.etag-counter, actors: 2}
`)
	sc.Target.BlobURL = inst.BlobURL
	// The variable is empty: a clear error naming it, nothing else.
	t.Setenv("STORMCHECK_TEST_KEY", "")
	_, err := Run(ctx, sc, Options{ResultsDir: filepath.Join(t.TempDir(), "r1")})
	if err == nil || !strings.Contains(err.Error(), "STORMCHECK_TEST_KEY is empty") {
		t.Fatalf("want an error naming the empty variable, got %v", err)
	}
	t.Setenv("STORMCHECK_TEST_KEY", inst.Key)
	dir := filepath.Join(t.TempDir(), "r2")
	sum, err := Run(ctx, sc, Options{ResultsDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Checks) == 0 || !runtest.AllPass(sum.Checks) || !strings.Contains(sum.Target, "shared key") {
		t.Fatalf("target %q checks %+v", sum.Target, sum.Checks)
	}
	runtest.AssertNoSecrets(t, dir)
}
