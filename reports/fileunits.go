package reports

import "strings"

// Azure Files units. Files operations (SMB calls and File REST calls) are
// accounted to the file they act on and to the workload's share, each
// against the Azure Files scalability targets, and not to the account's
// request target of the checklist (which the Blob, Table and Queue
// services share): an SMB call is not an HTTP request.
const (
	// UnitFile is one file: every acknowledged SMB or REST call on it
	// counts one I/O against the per-file IOPS target.
	UnitFile UnitKind = "file"
	// UnitShare is the workload's share (one per workload): every call on
	// its files counts one I/O against the per-share IOPS target.
	UnitShare UnitKind = "share"
)

// ShareUnit is the name the share unit of a workload is reported under.
const ShareUnit = "(share)"

// SMBSuccess is the status an acknowledged SMB call is counted under in
// an op's responses: SMB calls have no HTTP status, their answer is an NT
// status (STATUS_SHARING_VIOLATION, STATUS_DELETE_PENDING, ...).
const SMBSuccess = "STATUS_SUCCESS"

// SMBOp reports whether op kind is an SMB call (files.open, files.lock...;
// not the File REST calls, files.rest.*).
func SMBOp(kind string) bool {
	return strings.HasPrefix(kind, "files.") && !strings.HasPrefix(kind, "files.rest.")
}

// filesOp reports whether op kind is an Azure Files call, SMB or REST.
func filesOp(kind string) bool { return strings.HasPrefix(kind, "files.") }

func init() {
	const source = "Azure Files scalability and performance targets (learn.microsoft.com/azure/storage/files/storage-files-scale-targets)"
	seedTargets[UnitFile] = UnitTarget{PerSecond: 1000, Measure: "I/O",
		Source: source + ", file scale targets: maximum IOPS per file 1,000 on HDD (standard) shares (8,000 on SSD); every SMB or REST call on the file counts one; at most 2,000 concurrent handles per file"}
	seedTargets[UnitShare] = UnitTarget{PerSecond: 20000, Measure: "I/O",
		Source: source + ", file share scale targets: maximum IOPS per HDD (standard) pay-as-you-go share 20,000 (large file shares; a provisioned share has the IOPS provisioned for it); every SMB or REST call on its files counts one"}
}
