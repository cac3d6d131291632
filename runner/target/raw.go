package target

import (
	"encoding/base64"
	"net/http"

	"github.com/stormcheck/stormcheck/runner/sharedkey"
)

// rawSigners sign the requests the conformance rules write out by hand
// (raw steps): with the account's key, and with a key that is not the
// account's, for a signature the service must refuse.
type rawSigners struct {
	right, wrong           *sharedkey.Signer
	tableRight, tableWrong *sharedkey.TableSigner
}

// setRawSigners keeps signers for account: raw steps need them. A key that
// does not decode leaves none (the SDK clients report the bad key).
func (t *Target) setRawSigners(account, key string) {
	right, err := sharedkey.New(account, key)
	if err != nil {
		return
	}
	k, _ := base64.StdEncoding.DecodeString(key)
	for i := range k {
		k[i] ^= 0x5a // same length, never the account's
	}
	wrongKey := base64.StdEncoding.EncodeToString(k)
	wrong, err := sharedkey.New(account, wrongKey)
	if err != nil {
		return
	}
	tableRight, err := sharedkey.NewTable(account, key)
	if err != nil {
		return
	}
	tableWrong, err := sharedkey.NewTable(account, wrongKey)
	if err != nil {
		return
	}
	t.raw = &rawSigners{right: right, wrong: wrong, tableRight: tableRight, tableWrong: tableWrong}
}

// RawSigners are the signers of raw requests to the target: one with the
// account's key, one with a wrong key; both nil when the target is not
// reached with an account key.
func (t *Target) RawSigners() (right, wrong *sharedkey.Signer) {
	if t.raw == nil {
		return nil, nil
	}
	return t.raw.right, t.raw.wrong
}

// RawTableSigners are RawSigners for the Table service, whose string to
// sign differs (the Queue service's is the Blob service's).
func (t *Target) RawTableSigners() (right, wrong *sharedkey.TableSigner) {
	if t.raw == nil {
		return nil, nil
	}
	return t.raw.tableRight, t.raw.tableWrong
}

// TableURL is the Table service endpoint raw table steps address ("" when
// the target reaches the Table service without an account key).
func (t *Target) TableURL() string { return t.tableURL }

// HTTPClient is the HTTP client the target's SDK clients share (the
// reachability watch included), for requests sent without the SDK.
func (t *Target) HTTPClient() *http.Client { return t.http }
