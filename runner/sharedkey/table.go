package sharedkey

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// TableSigner signs Table service requests with Shared Key or Shared Key
// Lite ("Authorize with Shared Key", the Table service's formats, which
// differ from the Blob and Queue services'):
//
//	Shared Key:      VERB\nContent-MD5\nContent-Type\nDate\nCanonicalizedResource
//	Shared Key Lite: Date\nCanonicalizedResource
//
// Date is the request's x-ms-date when it has one, else its Date header;
// CanonicalizedResource is /account/path, encoded as in the URI, plus
// ?comp=VALUE when the query has a comp parameter (and no other
// parameter). It is safe for concurrent use; it signs the few requests the
// conformance rules write out by hand, so it favours plainness over speed.
type TableSigner struct {
	account string
	key     []byte
	// Now is the clock x-ms-date is read from (time.Now unless a test
	// sets it).
	Now func() time.Time
}

// NewTable signs Table service requests for account with its key (base64,
// as the portal gives it). The error never contains the key.
func NewTable(account, key string) (*TableSigner, error) {
	if account == "" {
		return nil, errors.New("shared key: the account name is empty")
	}
	k, err := base64.StdEncoding.DecodeString(key)
	if err != nil || len(k) == 0 {
		return nil, errors.New("shared key: the account key is not valid base64")
	}
	return &TableSigner{account: account, key: k, Now: time.Now}, nil
}

// Sign sets r's x-ms-date when it has neither x-ms-date nor Date, then its
// Authorization: "SharedKey account:signature", or "SharedKeyLite ..."
// when lite. It fails only on a query string that does not parse.
func (s *TableSigner) Sign(r *http.Request, lite bool) error {
	if tableDate(r.Header) == "" {
		r.Header.Set("x-ms-date", s.Now().UTC().Format(http.TimeFormat))
	}
	sts, err := s.StringToSign(r, lite)
	if err != nil {
		return err
	}
	mac := hmac.New(sha256.New, s.key)
	mac.Write([]byte(sts))
	scheme := "SharedKey "
	if lite {
		scheme = "SharedKeyLite "
	}
	r.Header["Authorization"] = []string{scheme + s.account + ":" + base64.StdEncoding.EncodeToString(mac.Sum(nil))}
	return nil
}

// StringToSign is the string Sign signs for r.
func (s *TableSigner) StringToSign(r *http.Request, lite bool) (string, error) {
	res, err := s.canonicalResource(r.URL)
	if err != nil {
		return "", err
	}
	date := tableDate(r.Header)
	if lite {
		return date + "\n" + res, nil
	}
	return strings.Join([]string{r.Method, headerValue(r.Header, "Content-MD5", "Content-Md5"),
		headerValue(r.Header, "Content-Type", "Content-Type"), date, res}, "\n"), nil
}

// tableDate is the date a Table service signature covers: x-ms-date when
// the request has one, else Date.
func tableDate(h http.Header) string {
	if d := headerValue(h, "x-ms-date", "X-Ms-Date"); d != "" {
		return d
	}
	return h.Get("Date")
}

// canonicalResource is /account/path (as encoded in the URI) and
// ?comp=VALUE when the query names comp.
func (s *TableSigner) canonicalResource(u *url.URL) (string, error) {
	p := u.EscapedPath()
	if p == "" {
		p = "/"
	}
	res := "/" + s.account + p
	q, err := url.ParseQuery(u.RawQuery)
	if err != nil {
		return "", errors.New("failed to parse query params: " + err.Error())
	}
	if comp, ok := q["comp"]; ok {
		res += "?comp=" + comp[0]
	}
	return res, nil
}
