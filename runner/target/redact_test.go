package target

import (
	"strings"
	"testing"
)

func TestRedactRemovesSecrets(t *testing.T) {
	secrets := []string{"c2VjcmV0a2V5MTIzNDU2Nzg5MA==", "sv=2021&sig=abcDEF%2Bsecret", "eyJhbGciOi.payload.sig"}
	in := []string{
		"DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=" + secrets[0] + ";EndpointSuffix=core.windows.net",
		"GET https://acct.blob.core.windows.net/c/b?sv=2021&sig=abcDEF%2Bsecret&se=2030",
		"Authorization: Bearer eyJhbGciOi.payload.sig",
		"BlobEndpoint=https://x/;SharedAccessSignature=sv=2021&sig=abcDEF%2Bsecret",
	}
	for _, s := range in {
		got := Redact(s)
		for _, sec := range []string{secrets[0], "abcDEF%2Bsecret", "eyJhbGciOi"} {
			if strings.Contains(got, sec) {
				t.Errorf("Redact(%q) = %q still holds %q", s, got, sec)
			}
		}
		if !strings.Contains(got, "REDACTED") {
			t.Errorf("Redact(%q) = %q does not say what it removed", s, got)
		}
	}
	if got := Redact("AccountName=acct;BlobEndpoint=http://127.0.0.1:1/x"); got != "AccountName=acct;BlobEndpoint=http://127.0.0.1:1/x" {
		t.Errorf("Redact changed a string with no secret: %q", got)
	}
}
