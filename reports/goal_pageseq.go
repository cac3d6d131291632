package reports

// blob.page-seqnum-cas's goal: its acknowledged compare-and-swaps, each one
// increment of the sequence number.
func init() {
	goals["blob.page-seqnum-cas"] = Goal{Noun: "CASes", Ops: []string{"blob.page.seqnum"}}
}
