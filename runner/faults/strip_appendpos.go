package faults

import (
	"net/http"
)

// appendPosHeader is Append Block's append position condition.
const appendPosHeader = "X-Ms-Blob-Condition-Appendpos"

// StripAppendPos strips x-ms-blob-condition-appendpos from Append Block
// requests before forwarding them, so that an append sent for a position
// another appender has taken is appended at the end instead of refused
// (broken.strip-appendpos; append-log must fail). The Shared Key signature
// covers every x-ms- header, so the stage signs the request again with the
// account's key (Schedule.SetAccount).
type StripAppendPos struct{}

// Apply removes the append position from an Append Block, re-signs,
// forwards.
func (StripAppendPos) Apply(w http.ResponseWriter, r *http.Request, next http.Handler) string {
	v := r.Header.Get(appendPosHeader)
	if v == "" || r.Method != http.MethodPut || r.URL.Query().Get("comp") != "appendblock" {
		next.ServeHTTP(w, r)
		return "not an Append Block with an append position: forwarded"
	}
	s, _ := r.Context().Value(schedKey{}).(*Schedule)
	if s == nil || s.account == "" {
		next.ServeHTTP(w, r)
		return "no account key to sign with: forwarded unchanged"
	}
	r.Header.Del(appendPosHeader)
	signBlob(r, s.account, s.key)
	next.ServeHTTP(w, r)
	return "x-ms-blob-condition-appendpos " + v + " stripped, forwarded as an append at the end"
}
