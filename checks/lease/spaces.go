package lease

import (
	"net/http"
	"strings"
)

// The two lease namespaces (blobs and containers): which operation kinds are lease calls, which data calls the lease guards.

// --- the two namespaces ---

type leaseAction uint8

const (
	laNone leaseAction = iota
	laAcquire
	laRenew
	laChange
	laRelease
	laBreak
)

var leaseActionNames = [...]string{"", "acquire", "renew", "change", "release", "break"}

// leaseOKStatus is the documented success status of each lease action.
var leaseOKStatus = [...]int{0, http.StatusCreated, http.StatusOK, http.StatusOK, http.StatusOK, http.StatusAccepted}

// leaseDataClass says how a non-lease operation relates to a lease.
type leaseDataClass struct {
	known    bool // a kind the checkers judge
	enforced bool // refused without the lease id while the lease is held
	modifies bool // changes the resource (its ETag; forgets an expired lease's id)
	observes bool // a successful answer's ETag is the resource's current ETag
	deletes  bool // removes the resource, and its lease with it
}

type leaseSpace struct {
	prefix     string // every kind of this namespace starts with it: "blob."
	lease      string // lease calls: "blob.lease."
	noun       string // "blob"
	nouns      string // "blobs"
	data       map[string]leaseDataClass
	mismatch   string // 412 code for a wrong lease id on another operation
	notPresent string // 412 code for a lease id where there is no lease
	etag       bool   // check that lease calls never change the ETag
}

// The blob namespace. Put Block (blob.stage) takes the lease id and is
// refused without it on a leased blob; it does not change the committed
// blob, but it is counted as a possible change (of the ETag, and of an
// expired lease's id) so that no correct history is flagged for it.
var blobLeaseSpace = &leaseSpace{
	prefix: "blob.", lease: "blob.lease.", noun: "blob", nouns: "blobs",
	data: map[string]leaseDataClass{
		"blob.get":          {known: true, observes: true},
		"blob.getprops":     {known: true, observes: true},
		"blob.getmeta":      {known: true, observes: true},
		"blob.getblocklist": {known: true},
		"blob.put":          {known: true, enforced: true, modifies: true},
		"blob.create":       {known: true, enforced: true, modifies: true},
		"blob.commit":       {known: true, enforced: true, modifies: true},
		"blob.setmeta":      {known: true, enforced: true, modifies: true},
		"blob.setprops":     {known: true, enforced: true, modifies: true},
		"blob.stage":        {known: true, enforced: true, modifies: true},
		"blob.delete":       {known: true, enforced: true, modifies: true, deletes: true},
	},
	mismatch: lcMismatchBlob, notPresent: lcNotPresentBlob, etag: true,
}

// The container namespace: only Delete Container needs the lease; every
// other container operation succeeds without the lease id, and with one
// succeeds only if it names the active lease.
var containerLeaseSpace = &leaseSpace{
	prefix: "container.", lease: "container.lease.", noun: "container", nouns: "containers",
	data: map[string]leaseDataClass{
		"container.delete":   {known: true, enforced: true, modifies: true, deletes: true},
		"container.setmeta":  {known: true, modifies: true},
		"container.setacl":   {known: true, modifies: true},
		"container.getprops": {known: true},
		"container.getmeta":  {known: true},
		"container.getacl":   {known: true},
	},
	mismatch: lcMismatchContainer, notPresent: lcNotPresentContainer,
}

func (sp *leaseSpace) action(kind string) leaseAction {
	if !strings.HasPrefix(kind, sp.lease) {
		return laNone
	}
	for a, n := range leaseActionNames {
		if a > 0 && kind[len(sp.lease):] == n {
			return leaseAction(a)
		}
	}
	return laNone
}

// class returns a non-lease kind's class; an unknown kind of the namespace
// may change the resource and is not judged.
func (sp *leaseSpace) class(kind string) leaseDataClass {
	if c, ok := sp.data[kind]; ok {
		return c
	}
	return leaseDataClass{modifies: true}
}
