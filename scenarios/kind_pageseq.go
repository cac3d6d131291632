package scenarios

// The page-blob sequence-number workload and its broken promise, added to
// Kinds and FaultKinds from their own file.
func init() {
	Kinds["blob.page-seqnum-cas"] = KindSpec{
		Summary: "use a page blob's sequence number as a compare-and-swap counter: read it, Put Page with x-ms-if-sequence-number-eq on it, then increment it with If-Match on that write's ETag; re-read on 412",
		Checks:  []string{"seqnum-chain"},
		Ops:     []string{"blob.page.props", "blob.page.put", "blob.page.seqnum"},
	}
	FaultKinds["broken.strip-seqnum"] = FaultKindSpec{Summary: "strip x-ms-if-sequence-number-le/lt/eq from page writes", Scope: httpScope, Check: "seqnum-chain"}
}
