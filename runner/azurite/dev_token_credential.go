package azurite

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
)

// DevTokenOptions configures DevTokenCredential. The zero value yields
// tokens Azurite's "--oauth basic" accepts.
type DevTokenOptions struct {
	// Audience is the token's "aud". Default: the requested scope without
	// "/.default" (the SDKs ask for https://storage.azure.com/.default).
	Audience string
	// TenantID goes into "tid" and the default issuer
	// (default 00000000-0000-4000-8000-000000000000, a made-up GUID).
	TenantID string
	// Issuer is the token's "iss" (default https://sts.windows.net/<TenantID>/).
	// Azurite only accepts issuers starting with https://sts.windows.net/,
	// https://sts.microsoftonline.de/, https://sts.chinacloudapi.cn/ or
	// https://sts.windows-ppe.net.
	Issuer string
	// Lifetime is the time from now to "exp" (default 1h). "nbf" and "iat"
	// are set five minutes in the past to absorb clock skew.
	Lifetime time.Duration
}

// DevTokenCredential returns an azcore.TokenCredential that mints unsigned
// (alg "none"), Entra-ID-shaped JWTs locally, without any network call.
//
// FOR TESTS AND LOCAL DEVELOPMENT ONLY: it is meant for Azurite started with
// Options.OAuth, whose "basic" OAuth mode checks a token's shape, lifetime,
// issuer and audience but not its signature. Real Azure Storage rejects
// these tokens.
func DevTokenCredential(o DevTokenOptions) azcore.TokenCredential {
	if o.TenantID == "" {
		o.TenantID = "00000000-0000-4000-8000-000000000000"
	}
	if o.Issuer == "" {
		o.Issuer = "https://sts.windows.net/" + o.TenantID + "/"
	}
	if o.Lifetime == 0 {
		o.Lifetime = time.Hour
	}
	return devToken{o}
}

type devToken struct{ o DevTokenOptions }

// GetToken implements azcore.TokenCredential.
func (d devToken) GetToken(_ context.Context, opts policy.TokenRequestOptions) (azcore.AccessToken, error) {
	aud := d.o.Audience
	if aud == "" && len(opts.Scopes) > 0 {
		aud = strings.TrimSuffix(opts.Scopes[0], "/.default")
	}
	now := time.Now()
	exp := now.Add(d.o.Lifetime)
	oid := randomGUID()
	claims := map[string]any{
		"aud":   aud,
		"iss":   d.o.Issuer,
		"iat":   now.Add(-5 * time.Minute).Unix(),
		"nbf":   now.Add(-5 * time.Minute).Unix(),
		"exp":   exp.Unix(),
		"tid":   d.o.TenantID,
		"oid":   oid,
		"sub":   oid,
		"appid": "stormcheck-dev",
		"ver":   "1.0",
	}
	header, _ := json.Marshal(map[string]string{"alg": "none", "typ": "JWT"})
	payload, err := json.Marshal(claims)
	if err != nil {
		return azcore.AccessToken{}, err
	}
	enc := base64.RawURLEncoding
	token := enc.EncodeToString(header) + "." + enc.EncodeToString(payload) + "."
	return azcore.AccessToken{Token: token, ExpiresOn: exp}, nil
}

// randomGUID returns a random RFC 4122 version 4 GUID string.
func randomGUID() string {
	var b [16]byte
	rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}
