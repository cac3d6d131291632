package connstr

import (
	"strings"
	"testing"
)

const (
	key    = "c2VjcmV0a2V5c2VjcmV0a2V5" // base64 of "secretkeysecretkey"
	sasSig = "sv=2019-02-02&ss=bqt&srt=sco&sp=rwdlacup&se=2030-01-01T00%3A00%3A00Z&sig=SECRETSIG%3D"
)

// TestParseForms reads every form of "Configure Azure Storage connection
// strings" into each service's endpoint (named or derived) and credential.
func TestParseForms(t *testing.T) {
	type ep struct {
		url   string
		named bool
	}
	none := ep{}
	for _, c := range []struct {
		name, cs      string
		auth          Auth
		account, cred string        // AccountName; AccountKey or SAS
		want          [nServices]ep // blob, queue, table, file
	}{
		{"portal account key", "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=" + key + ";EndpointSuffix=core.windows.net", SharedKey, "acct", key,
			[nServices]ep{{"https://acct.blob.core.windows.net", false}, {"https://acct.queue.core.windows.net", false}, {"https://acct.table.core.windows.net", false}, {"https://acct.file.core.windows.net", false}}},
		{"account key, defaults", "AccountName=acct;AccountKey=" + key, SharedKey, "acct", key,
			[nServices]ep{{"https://acct.blob.core.windows.net", false}, {"https://acct.queue.core.windows.net", false}, {"https://acct.table.core.windows.net", false}, {"https://acct.file.core.windows.net", false}}},
		{"account key, http, another cloud's suffix", "DefaultEndpointsProtocol=http;AccountName=storagesample;AccountKey=" + key + ";EndpointSuffix=core.chinacloudapi.cn;", SharedKey, "storagesample", key,
			[nServices]ep{{"http://storagesample.blob.core.chinacloudapi.cn", false}, {"http://storagesample.queue.core.chinacloudapi.cn", false}, {"http://storagesample.table.core.chinacloudapi.cn", false}, {"http://storagesample.file.core.chinacloudapi.cn", false}}},
		{"account key, every endpoint explicit (Azurite's)", "DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=" + key +
			";BlobEndpoint=http://127.0.0.1:10000/devstoreaccount1;QueueEndpoint=http://127.0.0.1:10001/devstoreaccount1;TableEndpoint=http://127.0.0.1:10002/devstoreaccount1;", SharedKey, "devstoreaccount1", key,
			[nServices]ep{{"http://127.0.0.1:10000/devstoreaccount1", true}, {"http://127.0.0.1:10001/devstoreaccount1", true}, {"http://127.0.0.1:10002/devstoreaccount1", true}, {"http://devstoreaccount1.file.core.windows.net", false}}},
		{"account key, a custom blob domain, the others derived", "DefaultEndpointsProtocol=https;\nBlobEndpoint=http://www.mydomain.com;\nAccountName=storagesample;\nAccountKey=" + key + "\n", SharedKey, "storagesample", key,
			[nServices]ep{{"http://www.mydomain.com", true}, {"https://storagesample.queue.core.windows.net", false}, {"https://storagesample.table.core.windows.net", false}, {"https://storagesample.file.core.windows.net", false}}},
		{"SAS, service SAS for blob only", "BlobEndpoint=https://storagesample.blob.core.windows.net;\nSharedAccessSignature=" + sasSig, SAS, "", sasSig,
			[nServices]ep{{"https://storagesample.blob.core.windows.net", true}, none, none, none}},
		{"SAS, account SAS for blob and file", "BlobEndpoint=https://storagesample.blob.core.windows.net;FileEndpoint=https://storagesample.file.core.windows.net;SharedAccessSignature=" + sasSig, SAS, "", sasSig,
			[nServices]ep{{"https://storagesample.blob.core.windows.net", true}, none, none, {"https://storagesample.file.core.windows.net", true}}},
		{"SAS with a leading '?'", "TableEndpoint=http://127.0.0.1:3/a;SharedAccessSignature=?" + sasSig, SAS, "", sasSig,
			[nServices]ep{none, none, {"http://127.0.0.1:3/a", true}, none}},
		{"SAS with AccountName", "AccountName=acct;SharedAccessSignature=" + sasSig, SAS, "acct", sasSig,
			[nServices]ep{{"https://acct.blob.core.windows.net", false}, {"https://acct.queue.core.windows.net", false}, {"https://acct.table.core.windows.net", false}, {"https://acct.file.core.windows.net", false}}},
		{"SAS with AccountName and TableEndpoint (the report's)", "AccountName=acct;SharedAccessSignature=" + sasSig + ";TableEndpoint=http://127.0.0.1:41001/acct", SAS, "acct", sasSig,
			[nServices]ep{{"https://acct.blob.core.windows.net", false}, {"https://acct.queue.core.windows.net", false}, {"http://127.0.0.1:41001/acct", true}, {"https://acct.file.core.windows.net", false}}},
		{"anonymous, explicit endpoint", "BlobEndpoint=https://public.example", Anonymous, "", "",
			[nServices]ep{{"https://public.example", true}, none, none, none}},
		{"keys in any case, spaces, empty parts", " accountname = acct ;; ACCOUNTKEY=" + key + " ; blobendpoint=http://[::1]:9/acct;", SharedKey, "acct", key,
			[nServices]ep{{"http://[::1]:9/acct", true}, {"https://acct.queue.core.windows.net", false}, {"https://acct.table.core.windows.net", false}, {"https://acct.file.core.windows.net", false}}},
		{"development storage", "UseDevelopmentStorage=true", SharedKey, DevAccount, DevKey,
			[nServices]ep{{"http://127.0.0.1:10000/devstoreaccount1", false}, {"http://127.0.0.1:10001/devstoreaccount1", false}, {"http://127.0.0.1:10002/devstoreaccount1", false}, none}},
		{"development storage through a proxy", "UseDevelopmentStorage=True;DevelopmentStorageProxyUri=https://myProxyUri:8888/ignored", SharedKey, DevAccount, DevKey,
			[nServices]ep{{"https://myProxyUri:10000/devstoreaccount1", false}, {"https://myProxyUri:10001/devstoreaccount1", false}, {"https://myProxyUri:10002/devstoreaccount1", false}, none}},
	} {
		p, err := Parse(c.cs)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		cred := p.AccountKey + p.SAS
		if p.Auth != c.auth || p.AccountName != c.account || cred != c.cred {
			t.Errorf("%s: auth %d, account %q, credential %q; want %d, %q, %q", c.name, p.Auth, p.AccountName, cred, c.auth, c.account, c.cred)
		}
		for s := Blob; s < nServices; s++ {
			u, named, err := p.Endpoint(s)
			if got := (ep{u, named}); got != c.want[s] || (err == nil) != (c.want[s].url != "") {
				t.Errorf("%s: %s endpoint %v (err %v), want %v", c.name, s, got, err, c.want[s])
			}
			cu, err := p.ClientURL(s)
			want := c.want[s].url
			if want != "" && c.auth == SAS {
				want += "?" + sasSig
			}
			if cu != want || (err == nil) != (want != "") {
				t.Errorf("%s: %s client URL %q (err %v), want %q", c.name, s, cu, err, want)
			}
		}
	}
}

// TestParseRefuses: what cannot be read is refused with the reason, and
// no error ever holds a value of the string.
func TestParseRefuses(t *testing.T) {
	const secret = "SECRETSIG"
	for _, c := range []struct{ cs, want string }{
		{"", "it is empty"},
		{" ; ;", "it is empty"},
		{"garbage;AccountKey=" + secret, "part 1 is not Name=value"},
		{"AccountName=a;AccountKey=" + secret + ";SharedAccessSignature=sig=" + secret, "both AccountKey and SharedAccessSignature"},
		{"AccountKey=" + secret + ";BlobEndpoint=http://127.0.0.1:1/a", "has an AccountKey but no AccountName"},
		{"AccountName=a;BlobEndpoint=http://127.0.0.1:1/a", "has an AccountName but neither AccountKey nor SharedAccessSignature"},
		{"AccountName=a;AccountKey=" + secret + ";TabelEndpoint=http://127.0.0.1:1/a", "unknown key TabelEndpoint"},
		{"AccountName=a;AccountKey=" + secret + ";sv=2019&sig=" + secret, "unknown key sv"},
		{"AccountName=a;AccountKey=" + secret + ";" + secret + "+/=x", "part 3 is not Name=value with a known name"},
		{"AccountName=a;accountname=b;AccountKey=" + secret, "AccountName is given twice"},
		{"AccountName=;AccountKey=" + secret, "AccountName is empty"},
		{"BlobEndpoint=https://a.blob.core.windows.net/?sv=1&sig=" + secret + ";SharedAccessSignature=sig=" + secret, "BlobEndpoint has a query"},
		{"BlobEndpoint=http://user:" + secret + "@127.0.0.1:1/a;SharedAccessSignature=sig=" + secret, "BlobEndpoint holds user information"},
		{"BlobEndpoint=127.0.0.1:10000/" + secret + ";SharedAccessSignature=sig=" + secret, "BlobEndpoint is not an absolute URL"},
		{"QueueEndpoint=ftp://127.0.0.1/" + secret + ";SharedAccessSignature=sig=" + secret, "QueueEndpoint is not an http or https URL"},
		{"TableEndpoint=http://127.0.0.1/#" + secret + ";SharedAccessSignature=sig=" + secret, "TableEndpoint has a fragment"},
		{"DefaultEndpointsProtocol=ftp;AccountName=a;AccountKey=" + secret, "DefaultEndpointsProtocol is neither http nor https"},
		{"AccountName=a;AccountKey=" + secret + ";EndpointSuffix=evil.example/" + secret, "EndpointSuffix is not a DNS name"},
		{"AccountName=evil.example/;AccountKey=" + secret, "AccountName is not a storage account name"},
		{"SharedAccessSignature=sig=" + secret, "names no endpoint"},
		{"BlobEndpoint=http://127.0.0.1:1/a;SharedAccessSignature=%zz" + secret, "SharedAccessSignature is not a URL query"},
		{"UseDevelopmentStorage=true;AccountKey=" + secret, "takes no other key than DevelopmentStorageProxyUri (it has AccountKey)"},
		{"UseDevelopmentStorage=false", "UseDevelopmentStorage takes only the value true"},
		{"DevelopmentStorageProxyUri=http://proxy", "goes only with UseDevelopmentStorage=true"},
		{"UseDevelopmentStorage=true;DevelopmentStorageProxyUri=proxy", "DevelopmentStorageProxyUri is not an absolute URL"},
	} {
		_, err := Parse(c.cs)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), secret) || !strings.HasPrefix(err.Error(), "cannot be parsed: ") {
			t.Errorf("%q: %v, want %q", c.cs, err, c.want)
		}
	}
}

// TestEndpointMissing names the key a service lacks.
func TestEndpointMissing(t *testing.T) {
	p, err := Parse("BlobEndpoint=http://127.0.0.1:1/a;SharedAccessSignature=" + sasSig)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := p.Endpoint(Table); err == nil || err.Error() != "has no TableEndpoint and no AccountName to derive it from" {
		t.Errorf("table: %v", err)
	}
	dev, _ := Parse("UseDevelopmentStorage=true")
	if _, _, err := dev.Endpoint(File); err == nil || err.Error() != "is UseDevelopmentStorage=true, which has no file endpoint" {
		t.Errorf("development storage, file: %v", err)
	}
	if got := Of(Table, Blob).List(); len(got) != 2 || got[0] != Blob || got[1] != Table || !Of(Table).Has(Table) || Of(Table).Has(Blob) {
		t.Errorf("List: %v", got)
	}
	if Table.Key() != "TableEndpoint" || Table.String() != "table" {
		t.Errorf("Table: %s %s", Table.Key(), Table)
	}
}
