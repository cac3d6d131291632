package target

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/service"
	"github.com/stormcheck/stormcheck/runner/azurite"
	"github.com/stormcheck/stormcheck/runner/connstr"
	"github.com/stormcheck/stormcheck/runner/samba"
	"github.com/stormcheck/stormcheck/scenarios"
)

// TestFileClientFromConnectionString: a connection-string target's File
// client is built from the parsed endpoint and credential (derived from
// AccountName, or FileEndpoint with a SAS), with the SMB logon of the same
// host for an account key; a string without a file endpoint, a managed
// Azurite and a managed Samba have no client and say why, without the key.
func TestFileClientFromConnectionString(t *testing.T) {
	const key = "c2VjcmV0a2V5c2VjcmV0a2V5"
	const sas = "sv=2022-11-02&ss=f&srt=sco&sp=rwdlc&se=2030-01-01T00%3A00%3A00Z&sig=SECRETSIG%3D"
	for _, c := range []struct {
		name, cs, url, smb, err string
	}{
		{"account key, derived", "AccountName=acct;AccountKey=" + key, "https://acct.file.core.windows.net", "acct@acct.file.core.windows.net:445", ""},
		{"account key, another suffix", "AccountName=acct;AccountKey=" + key + ";EndpointSuffix=core.chinacloudapi.cn", "https://acct.file.core.chinacloudapi.cn", "acct@acct.file.core.chinacloudapi.cn:445", ""},
		{"SAS, FileEndpoint", "FileEndpoint=https://acct.file.core.windows.net;SharedAccessSignature=" + sas, "https://acct.file.core.windows.net?" + sas, "", ""},
		{"Azurite's string: the file endpoint would be derived to a public host", "DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=" + key + ";BlobEndpoint=http://127.0.0.1:10000/devstoreaccount1;", "", "", "no emulator has a File service"},
		{"another account on loopback", "AccountName=acct;AccountKey=" + key + ";TableEndpoint=http://[::1]:9/acct", "", "", "no emulator has a File service"},
		{"SAS, blob only", "BlobEndpoint=https://acct.blob.core.windows.net;SharedAccessSignature=" + sas, "", "", "has no FileEndpoint"},
	} {
		p, err := connstr.Parse(c.cs)
		if err != nil {
			t.Fatal(c.name, err)
		}
		tg := &Target{}
		if err := tg.connectionStringClients(p, &service.ClientOptions{}, NewHTTPClient(2)); err != nil {
			t.Fatal(c.name, err)
		}
		fc, err := tg.Files()
		switch {
		case c.err != "":
			if fc != nil || err == nil || !strings.Contains(err.Error(), c.err) || strings.Contains(err.Error(), key) {
				t.Errorf("%s: client %v, err %v; want none, %q", c.name, fc, err, c.err)
			}
		case err != nil || fc.URL() != c.url:
			t.Errorf("%s: %v, url %q; want %q", c.name, err, fc.URL(), c.url)
		}
		smb := ""
		if tg.FileSMB != nil {
			smb = tg.FileSMB.String()
			if tg.FileSMB.Password != key || strings.Contains(fmt.Sprintf("%v %#v", *tg.FileSMB, *tg.FileSMB), key) {
				t.Errorf("%s: SMB logon password wrong or printed", c.name)
			}
		}
		if smb != c.smb {
			t.Errorf("%s: SMB logon %q, want %q", c.name, smb, c.smb)
		}
	}
	for _, tg := range []*Target{{Azurite: &azurite.Instance{}}, {Samba: &samba.Instance{}}} {
		if _, err := tg.Files(); !errors.Is(err, ErrNoFileService) || !strings.Contains(err.Error(), "connection-string") {
			t.Errorf("%v", err)
		}
	}
}

// TestFilesKindsUseTheFileEndpoint: a scenario with a Files REST workload
// needs the connection string's file endpoint, and a string without one is
// refused before anything is sent.
func TestFilesKindsUseTheFileEndpoint(t *testing.T) {
	sc := &scenarios.Scenario{Workloads: []scenarios.Workload{{Kind: "files.rest-ranges"}}}
	uses := ScenarioServices(sc)
	if !uses.Has(connstr.File) || !uses.Has(connstr.Blob) {
		t.Fatalf("uses %v", uses.List())
	}
	st := scenarios.Target{Kind: scenarios.TargetConnectionString}
	err := CheckConnectionString(st, Options{ConnectionString: "BlobEndpoint=https://a.blob.core.windows.net;SharedAccessSignature=sv=1&sig=x", Uses: uses})
	if !errors.Is(err, ErrBadConnectionString) || !strings.Contains(err.Error(), "file service is used") {
		t.Fatalf("%v", err)
	}
}
