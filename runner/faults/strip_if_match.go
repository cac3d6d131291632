package faults

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
)

// StripIfMatch strips If-Match from conditional writes before forwarding
// them, so that a write on a stale ETag overwrites a newer one
// (broken.strip-if-match; no-lost-updates must fail). A blob request's
// Shared Key signature covers If-Match, so the stage signs it again with
// the account's key (Schedule.SetAccount); a table request's does not.
type StripIfMatch struct{}

// Apply removes If-Match (any but "*") from a write, re-signs, forwards.
func (StripIfMatch) Apply(w http.ResponseWriter, r *http.Request, next http.Handler) string {
	v := r.Header.Get("If-Match")
	if v == "" || v == "*" || r.Method == http.MethodGet || r.Method == http.MethodHead {
		next.ServeHTTP(w, r)
		return "not a conditional write: forwarded"
	}
	r.Header.Del("If-Match")
	if serviceOf(r) == "blob" {
		s, _ := r.Context().Value(schedKey{}).(*Schedule)
		if s == nil || s.account == "" {
			r.Header.Set("If-Match", v)
			next.ServeHTTP(w, r)
			return "no account key to sign with: forwarded unchanged"
		}
		signBlob(r, s.account, s.key)
	}
	next.ServeHTTP(w, r)
	return "If-Match " + v + " stripped, forwarded as an unconditional write"
}

// signBlob sets r's Authorization to its Shared Key signature for the Blob
// service, as the SDK computes it (the string to sign of "Authorize with
// Shared Key": the verb, the standard headers, the x-ms-* headers, the
// resource and its query).
func signBlob(r *http.Request, account, key string) {
	h := r.Header
	length := ""
	if r.ContentLength > 0 {
		length = strconv.FormatInt(r.ContentLength, 10)
	}
	sts := strings.Join([]string{r.Method, h.Get("Content-Encoding"), h.Get("Content-Language"), length,
		h.Get("Content-MD5"), h.Get("Content-Type"), h.Get("Date"), h.Get("If-Modified-Since"), h.Get("If-Match"),
		h.Get("If-None-Match"), h.Get("If-Unmodified-Since"), h.Get("Range"), canonicalHeaders(h) + canonicalResource(r.URL, account)}, "\n")
	k, err := base64.StdEncoding.DecodeString(key)
	if err != nil {
		return
	}
	m := hmac.New(sha256.New, k)
	m.Write([]byte(sts))
	h.Set("Authorization", "SharedKey "+account+":"+base64.StdEncoding.EncodeToString(m.Sum(nil)))
}

func canonicalHeaders(h http.Header) string {
	var names []string
	vals := map[string]string{}
	for k, v := range h {
		lk := strings.ToLower(k)
		if strings.HasPrefix(lk, "x-ms-") {
			names = append(names, lk)
			vals[lk] = strings.Join(v, ",")
		}
	}
	sort.Strings(names)
	var b strings.Builder
	for _, n := range names {
		b.WriteString(n + ":" + vals[n] + "\n")
	}
	return b.String()
}

func canonicalResource(u *url.URL, account string) string {
	cr := "/" + account + u.EscapedPath()
	q, _ := url.ParseQuery(u.RawQuery)
	var names []string
	lower := map[string][]string{}
	for k, v := range q {
		lk := strings.ToLower(k)
		names = append(names, lk)
		lower[lk] = append(lower[lk], v...)
	}
	sort.Strings(names)
	for _, n := range names {
		v := lower[n]
		sort.Strings(v)
		cr += "\n" + n + ":" + strings.Join(v, ",")
	}
	return cr
}
