package target

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/stormcheck/stormcheck/scenarios"
)

// TestCheckConnectionString: a string stormcheck cannot read, and an
// AccountKey that is not base64, are ErrBadConnectionString (bad input),
// from CheckConnectionString and from OpenTarget alike, without the key;
// good strings (shared key, SAS) pass, and so does a target of another kind.
func TestCheckConnectionString(t *testing.T) {
	const secret = "c2VjcmV0c2VjcmV0"
	st := scenarios.Target{Kind: scenarios.TargetConnectionString, ConnectionStringEnv: "EDGES_CS"}
	for _, c := range []struct {
		cs   string
		want string // "" for a string that must pass
	}{
		{"garbage;AccountKey=" + secret, "cannot be parsed"},
		{"AccountName=a;AccountKey=" + secret + "!;BlobEndpoint=http://127.0.0.1:1/a", "AccountKey that is not valid base64"},
		{"AccountName=a;AccountKey=" + secret + ";BlobEndpoint=http://127.0.0.1:1/a", ""},
		{"BlobEndpoint=https://a.blob.core.windows.net;SharedAccessSignature=sv=2022-11-02&sig=" + secret, ""},
	} {
		t.Setenv("EDGES_CS", c.cs)
		for _, o := range []Options{{ConnectionString: c.cs}, {}} {
			err := CheckConnectionString(st, o)
			if c.want == "" {
				if err != nil {
					t.Errorf("%q: %v", c.cs, err)
				}
				continue
			}
			if !errors.Is(err, ErrBadConnectionString) || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), secret) {
				t.Errorf("%q: CheckConnectionString: %v, want ErrBadConnectionString saying %q", c.cs, err, c.want)
			}
			if _, err := Open(context.Background(), st, o); !errors.Is(err, ErrBadConnectionString) || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), secret) {
				t.Errorf("%q: OpenTarget: %v, want ErrBadConnectionString saying %q", c.cs, err, c.want)
			}
		}
	}
	if err := CheckConnectionString(scenarios.Target{Kind: scenarios.TargetAzurite}, Options{}); err != nil {
		t.Errorf("azurite target: %v", err)
	}
}
