package runner

// broken.strip-seqnum (runner/faults.StripSeqNum) is injected by this build.
func init() { injectable["broken.strip-seqnum"] = true }
