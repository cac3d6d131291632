package azurite

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob"
)

// selfSignedCert writes a fresh ECDSA P-256 certificate for 127.0.0.1, ::1
// and localhost and its key into dir, returning the paths and the cert PEM.
func selfSignedCert(t *testing.T, dir string) (certPath, keyPath string, certPEM []byte) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(time.Now().UnixNano()),
		Subject:               pkix.Name{CommonName: "stormcheck azurite test"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
		DNSNames:              []string{"localhost"},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	pkcs8, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certPEM = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	certPath, keyPath = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(certPath, certPEM, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyPath, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: pkcs8}), 0o600); err != nil {
		t.Fatal(err)
	}
	return certPath, keyPath, certPEM
}

// TestOAuthBearerToken starts Azurite with HTTPS and --oauth basic and
// checks the Entra ID path: a blob round trip signed with a DevTokenCredential
// token succeeds, and tokens with a wrong audience or issuer are refused.
func TestOAuthBearerToken(t *testing.T) {
	dir := t.TempDir()
	certPath, keyPath, certPEM := selfSignedCert(t, dir)
	inst := startT(t, Options{OAuth: true, CertPEM: certPath, KeyPEM: keyPath, WorkDir: dir})
	if inst.BlobURL[:len("https://127.0.0.1:")] != "https://127.0.0.1:" {
		t.Fatalf("BlobURL %q is not https on 127.0.0.1", inst.BlobURL)
	}
	ctx := testCtx(t, time.Minute)

	// The test's own client, trusting only the test's certificate.
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(certPEM) {
		t.Fatal("cannot parse the generated cert")
	}
	hc := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	defer hc.CloseIdleConnections()
	clientWith := func(cred azcore.TokenCredential) *azblob.Client {
		c, err := azblob.NewClient(inst.BlobURL, cred, &azblob.ClientOptions{ClientOptions: azcore.ClientOptions{Transport: hc}})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}

	good := clientWith(DevTokenCredential(DevTokenOptions{}))
	if _, err := good.CreateContainer(ctx, "oauth", nil); err != nil {
		t.Fatalf("create container with token: %v", err)
	}
	payload := []byte("entra id path through azurite")
	if _, err := good.UploadBuffer(ctx, "oauth", "b", payload, nil); err != nil {
		t.Fatalf("upload with token: %v", err)
	}
	resp, err := good.DownloadStream(ctx, "oauth", "b", nil)
	if err != nil {
		t.Fatalf("download with token: %v", err)
	}
	got, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || !bytes.Equal(got, payload) {
		t.Fatalf("downloaded %q (err %v), want %q", got, err, payload)
	}

	refused := map[string]DevTokenOptions{
		"wrong audience": {Audience: "https://vault.azure.net"},
		"wrong issuer":   {Issuer: "https://login.example.com/tenant/"},
	}
	for name, o := range refused {
		_, err := clientWith(DevTokenCredential(o)).DownloadStream(ctx, "oauth", "b", nil)
		var re *azcore.ResponseError
		if !errors.As(err, &re) || (re.StatusCode != http.StatusForbidden && re.StatusCode != http.StatusUnauthorized) {
			t.Errorf("%s: download err = %v, want HTTP 401/403", name, err)
			continue
		}
		t.Logf("%s: refused with HTTP %d %s", name, re.StatusCode, re.ErrorCode)
	}

	// Plain HTTP must not be served in this mode.
	if r, err := http.Get("http" + inst.BlobURL[len("https"):]); err == nil {
		r.Body.Close()
		if r.StatusCode < 400 {
			t.Errorf("plain HTTP answered %d in OAuth mode", r.StatusCode)
		}
	}
}
