// Package sharedkey signs Blob service requests with Shared Key ("Authorize
// with Shared Key", version 2009-09-19 and later).
//
// It produces, byte for byte, the x-ms-date and Authorization headers
// azblob's own SharedKeyCredPolicy produces (the tests sign the same
// requests with both and compare), with a fraction of the work: azblob's
// builds the string to sign from fresh maps, slices, joined strings and
// weight tables on every request and formats the date every time; this one
// writes into a reused buffer, sorts the few x-ms-* names in place, reuses
// its HMACs and formats the date once a second. On the BlobClients fixture
// that is about a tenth of a call's CPU (README, "The harness costs no more
// than the SDK").
package sharedkey

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"hash"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
)

// Signer signs requests for one account. It is safe for concurrent use.
type Signer struct {
	account string
	key     []byte
	bufs    sync.Pool // of *signBuf
	date    atomic.Pointer[signDate]
	// Now is the clock x-ms-date is read from (time.Now unless a test
	// sets it before the first Sign).
	Now func() time.Time
}

// signDate is the x-ms-date of one second.
type signDate struct {
	unix int64
	s    string
}

// signBuf is one signing's scratch space.
type signBuf struct {
	mac   hash.Hash
	b     []byte
	names []xmsHeader
	sum   [sha256.Size]byte
}

// xmsHeader is an x-ms-* header: its name in lower case (b[lo:hi] of the
// string being built) and its key in the request's header map.
type xmsHeader struct {
	lo, hi int
	key    string
}

// New signs for account with its key (base64, as the portal gives it). The
// error never contains the key.
func New(account, key string) (*Signer, error) {
	if account == "" {
		return nil, errors.New("shared key: the account name is empty")
	}
	k, err := base64.StdEncoding.DecodeString(key)
	if err != nil || len(k) == 0 {
		return nil, errors.New("shared key: the account key is not valid base64")
	}
	s := &Signer{account: account, key: k, Now: time.Now}
	s.bufs.New = func() any { return &signBuf{mac: hmac.New(sha256.New, s.key)} }
	return s, nil
}

// Policy is s as a per-retry policy of the SDK's pipeline: it signs each
// attempt, then sends it on.
func (s *Signer) Policy() policy.Policy { return signPolicy{s} }

type signPolicy struct{ s *Signer }

func (p signPolicy) Do(req *policy.Request) (*http.Response, error) {
	if err := p.s.Sign(req.Raw()); err != nil {
		return nil, err
	}
	return req.Next()
}

// Sign sets r's x-ms-date (when it has none) and its Authorization. It
// fails only on a query string that does not parse.
func (s *Signer) Sign(r *http.Request) error {
	h := r.Header
	if headerValue(h, "x-ms-date", "X-Ms-Date") == "" {
		h["X-Ms-Date"] = []string{s.dateNow()}
	}
	sb := s.bufs.Get().(*signBuf)
	defer s.bufs.Put(sb)
	b, err := s.stringToSign(sb, r)
	if err != nil {
		return err
	}
	sb.mac.Reset()
	sb.mac.Write(b)
	sum := sb.mac.Sum(sb.sum[:0])
	b = append(b[:0], "SharedKey "...)
	b = append(b, s.account...)
	b = append(b, ':')
	b = base64.StdEncoding.AppendEncode(b, sum)
	h["Authorization"] = []string{string(b)}
	sb.b = b[:0]
	return nil
}

// dateNow is now as an HTTP date, formatted once a second.
func (s *Signer) dateNow() string {
	now := s.Now()
	sec := now.Unix()
	if d := s.date.Load(); d != nil && d.unix == sec {
		return d.s
	}
	d := &signDate{unix: sec, s: now.UTC().Format(http.TimeFormat)}
	s.date.Store(d)
	return d.s
}

// headerValue is the header's first value under the key the SDK reads it
// by, else under its canonical spelling. The SDK's generated code sets some
// headers under non-canonical keys ("Content-MD5", "x-ms-date") and reads
// them back exactly so; a request received by a server, which the fault
// stages re-sign, has every key canonical ("Content-Md5", "X-Ms-Date").
// (Only a request carrying such a header under its canonical spelling alone
// tells the two apart: the SDK would sign it without the value it sends, and
// the service refuse it.)
func headerValue(h http.Header, key, canonical string) string {
	if v := h[key]; len(v) > 0 {
		return v[0]
	}
	if v := h[canonical]; len(v) > 0 && canonical != key {
		return v[0]
	}
	return ""
}

// signedStandard are the standard headers of the string to sign, in order,
// under the keys the SDK reads them by; Date is always empty (x-ms-date is
// signed instead).
var signedStandard = [...]struct{ key, canonical string }{
	{"Content-Encoding", "Content-Encoding"}, {"Content-Language", "Content-Language"},
	{"Content-Length", "Content-Length"}, {"Content-MD5", "Content-Md5"}, {"Content-Type", "Content-Type"},
	{"", ""}, {"If-Modified-Since", "If-Modified-Since"}, {"If-Match", "If-Match"},
	{"If-None-Match", "If-None-Match"}, {"If-Unmodified-Since", "If-Unmodified-Since"}, {"Range", "Range"},
}

// stringToSign writes r's string to sign into sb.b and returns it.
func (s *Signer) stringToSign(sb *signBuf, r *http.Request) ([]byte, error) {
	h := r.Header
	b := append(sb.b[:0], r.Method...)
	for _, k := range signedStandard {
		b = append(b, '\n')
		if k.key == "" {
			continue
		}
		v := headerValue(h, k.key, k.canonical)
		if k.key == "Content-Length" && v == "0" {
			v = ""
		}
		b = append(b, v...)
	}
	b = append(b, '\n')
	// The x-ms-* headers: names in lower case, sorted as the service
	// compares them, each "name:value[,value...]" on its own line.
	names := sb.names[:0]
	mark := len(b)
	for k := range h {
		n := strings.TrimSpace(k)
		if len(n) < 5 || !strings.EqualFold(n[:5], "x-ms-") {
			continue
		}
		lo := len(b)
		for i := 0; i < len(n); i++ {
			c := n[i]
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			} else if c >= 0x80 { // not ASCII: lower case as strings.ToLower does
				b = append(b[:lo], strings.ToLower(n)...)
				break
			}
			b = append(b, c)
		}
		names = append(names, xmsHeader{lo: lo, hi: len(b), key: k})
	}
	// Names live in b after mark; the canonical text is appended after them
	// and then moved down over them.
	slices.SortFunc(names, func(x, y xmsHeader) int { return compareHeaderNames(b[x.lo:x.hi], b[y.lo:y.hi]) })
	names = dedupeNames(b, names)
	start := len(b)
	for i, n := range names {
		if i > 0 {
			b = append(b, '\n')
		}
		b = append(b, b[n.lo:n.hi]...)
		b = append(b, ':')
		for j, v := range h[n.key] {
			if j > 0 {
				b = append(b, ',')
			}
			b = append(b, v...)
		}
	}
	b = append(b[:mark], b[start:]...)
	sb.names = names[:0]
	b = append(b, '\n')
	var err error
	b, err = s.appendResource(b, r.URL)
	sb.b = b
	return b, err
}

// dedupeNames keeps one of each lower-case name (a header set under two
// spellings), as azblob's map keyed by the lower-case name keeps one (which
// one is up to its map's iteration order: a request that sets a header
// twice has no single signature).
func dedupeNames(b []byte, names []xmsHeader) []xmsHeader {
	return slices.CompactFunc(names, func(x, y xmsHeader) bool { return string(b[x.lo:x.hi]) == string(b[y.lo:y.hi]) })
}

// appendResource appends the canonicalized resource: /account/path, then
// each query parameter as "\nname:value[,value...]", names sorted as given
// and written in lower case, values decoded and sorted.
func (s *Signer) appendResource(b []byte, u *url.URL) ([]byte, error) {
	b = append(b, '/')
	b = append(b, s.account...)
	if p := u.EscapedPath(); p != "" {
		b = append(b, p...)
	} else {
		b = append(b, '/')
	}
	if u.RawQuery == "" {
		return b, nil
	}
	q, err := url.ParseQuery(u.RawQuery)
	if err != nil {
		return nil, errors.New("failed to parse query params: " + err.Error())
	}
	names := make([]string, 0, len(q))
	for n := range q {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		vs := q[n]
		sort.Strings(vs)
		b = append(b, '\n')
		b = append(b, strings.ToLower(n)...)
		b = append(b, ':')
		b = append(b, strings.Join(vs, ",")...)
	}
	return b, nil
}

// compareHeaderNames orders x-ms-* header names the way the service (and
// the SDK) does: a culture-aware comparison in two passes. The first pass
// compares primary weights and skips the characters that have none
// (hyphen, apostrophe, separators, control characters); digits sort before
// letters, letters ignore case, and the other token characters sort before
// digits. When the first pass ties, the second decides by the hyphens and
// apostrophes it skipped: at the first place where one name has one and the
// other has not, the name without it sorts first.
func compareHeaderNames(x, y []byte) int {
	level, i, j := 0, 0, 0
	for level < 2 {
		if level == 1 && i != j {
			if i > j {
				return -1
			}
			return 1
		}
		w1, w2 := 1, 1 // 1: past the end
		if i < len(x) {
			w1 = headerWeight(level, x[i])
		}
		if j < len(y) {
			w2 = headerWeight(level, y[j])
		}
		switch {
		case w1 == 1 && w2 == 1:
			level, i, j = level+1, 0, 0
		case w1 == w2:
			i++
			j++
		case w1 == 0:
			i++
		case w2 == 0:
			j++
		case w1 < w2:
			return -1
		default:
			return 1
		}
	}
	return 0
}

// headerWeight is a character's weight in the given pass of
// compareHeaderNames (0: none, skipped). Weights start at 2: 1 means past
// the end of a name.
func headerWeight(level int, c byte) int {
	if level == 1 {
		switch c {
		case '\'':
			return 2
		case '-':
			return 3
		}
		return 0
	}
	switch {
	case 'a' <= c && c <= 'z':
		return 100 + int(c-'a')
	case 'A' <= c && c <= 'Z':
		return 100 + int(c-'A')
	case '0' <= c && c <= '9':
		return 50 + int(c-'0')
	}
	// The other token characters, in their order: ! # $ % & * . ^ _ ` | ~ +
	if k := strings.IndexByte("!#$%&*.^_`|~+", c); k >= 0 {
		return 10 + k
	}
	return 0
}
