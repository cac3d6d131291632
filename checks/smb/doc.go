// Package smb judges SMB opens from a recorded history (the files.*
// workloads of runner/files): share modes per MS-FSA and the counters kept
// under exclusive opens. Each checker registers itself with checks.
//
// It may use checks.
package smb
