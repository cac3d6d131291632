package faults

import (
	"net/http"
	"sort"
	"strings"
)

// seqNumConditions are the page-write conditions on a page blob's
// sequence number (Put Page, Clear Pages).
var seqNumConditions = []string{"x-ms-if-sequence-number-le", "x-ms-if-sequence-number-lt", "x-ms-if-sequence-number-eq"}

// StripSeqNum strips the sequence-number conditions from page writes before
// forwarding them, so that a write conditioned on a number that has moved
// goes through (broken.strip-seqnum; seqnum-chain must fail). The Shared
// Key signature covers every x-ms-* header, so the stage signs the request
// again with the account's key (Schedule.SetAccount).
type StripSeqNum struct{}

// Apply removes x-ms-if-sequence-number-le/lt/eq, re-signs, forwards.
func (StripSeqNum) Apply(w http.ResponseWriter, r *http.Request, next http.Handler) string {
	var stripped []string
	saved := http.Header{}
	// The SDK sets its x-ms-* headers under lower-case keys, which the
	// canonicalizing Header methods would not find: every key is compared.
	for k, v := range r.Header {
		for _, h := range seqNumConditions {
			if strings.EqualFold(k, h) && len(v) > 0 {
				saved[k] = v
				stripped = append(stripped, h+": "+v[0])
				delete(r.Header, k)
			}
		}
	}
	sort.Strings(stripped)
	if len(stripped) == 0 {
		next.ServeHTTP(w, r)
		return "no sequence-number condition: forwarded"
	}
	s, _ := r.Context().Value(schedKey{}).(*Schedule)
	if s == nil || s.account == "" {
		for k, v := range saved {
			r.Header[k] = v
		}
		next.ServeHTTP(w, r)
		return "no account key to sign with: forwarded unchanged"
	}
	signBlob(r, s.account, s.key)
	next.ServeHTTP(w, r)
	return strings.Join(stripped, ", ") + " stripped, forwarded as an unconditional page write"
}
