// Package conformance holds the rule file format of stormcheck's
// conformance suite and its strict loader.
//
// A rule file is YAML holding a list of rules; each rule is a script of
// steps (Azure Storage operations) run in a fresh container, table or
// queue, each step checked against the documented behaviour of the
// service:
//
//	rules:
//	  - id: blob.lease.etag-unchanged
//	    title: Lease Blob does not change the ETag
//	    source: "Lease Blob (REST API reference)"
//	    tags: [blob, lease, etag]
//	    steps:
//	      - op: blob.put
//	        blob: b
//	        capture: {etag: e1}
//	        expect: {status: 201}
//	      - op: blob.lease.acquire
//	        blob: b
//	        duration: 15
//	        expect: {status: 201, etag: {equals: $e1}}
//
// Parse and LoadDir refuse anything they do not understand (unknown fields,
// fields an op does not take, references to variables no earlier step
// captures) with an ErrorList of errors printed as FILE:LINE:COL: FIELD: MSG.
package conformance
