// Package filerest holds the checks of the Azure Files REST workloads
// (runner/files, kinds files.rest-ranges, files.rest-lease and
// files.interplay), from the history alone:
//
//   - range-writes: under last-writer-wins Put Range, every slot of a file
//     ends as exactly one whole record of a write that covered it and may
//     have applied, and the writes seen are in an order that Put Range's
//     atomicity and real time allow (never a mix of two writes that both
//     covered the same slots);
//   - file-lease: one holder of a file's (infinite) lease at a time, and no
//     write without the lease id accepted while it is held;
//   - files-interplay: a REST call on a file an SMB client holds with share
//     none gets 409 SharingViolation, on a delete-pending file 409
//     SMBDeletePending or DeletePending (never 404, never success) and the
//     file is not listed, a Put Range inside another handle's byte-range
//     lock 409 FileLockConflict; after a REST delete no SMB open sees a
//     delete-pending file.
package filerest

// Op kinds the checks read (recorded by runner/files).
const (
	opPutRange  = "files.rest.put-range"
	opGet       = "files.rest.get"
	opGetProps  = "files.rest.getprops"
	opList      = "files.rest.list"
	opDelete    = "files.rest.delete"
	opCreate    = "files.rest.create"
	opAcquire   = "files.rest.lease.acquire"
	opRelease   = "files.rest.lease.release"
	opOpen      = "files.open"
	opClose     = "files.close"
	opSetDelete = "files.set-delete"
	opLock      = "files.lock"
	opUnlock    = "files.unlock"
)
