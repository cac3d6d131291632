// Package appendlog judges shared append-only logs from a recorded history
// (blob.append-log of runner/blob): many appenders append self-describing
// records to one append blob with x-ms-blob-condition-appendpos, and the
// final read returns the whole blob. It registers the append-log check
// with checks.
//
// It may use checks.
package appendlog
