package scenarios

import (
	"fmt"
	"path"
	"strings"
	"time"
)

// Fault is one entry of a scenario's faults list: what is done, when, to
// which requests.
type Fault struct {
	// Name labels the fault in the history and reports; default KIND-N
	// (N its position in the list, from 1).
	Name string
	// Kind is one of FaultKinds (e.g. http.drop-response).
	Kind string
	// At is when the (first) window opens, from the start of the load;
	// For is how long each window lasts (0 with Every also 0: the whole
	// run). Every, when set, opens a window every Every from At.
	At, For, Every time.Duration
	// Services limits the fault to these services (blob, queue, table);
	// empty: all.
	Services []string
	// Ops limits it to these operation kinds (FaultOps); empty: all.
	Ops []string
	// Keys limits it to requests on these keys: glob patterns (path.Match)
	// over a blob's name, a table entity's PartitionKey or a queue's name.
	// Empty: all.
	Keys []string
	// Fraction is the share of matching requests (HTTP faults) or
	// connections (network faults) the fault touches; default 1.
	Fraction float64
	// Parameters of the kinds that take them (see FaultKinds).
	Latency, Jitter time.Duration // net.latency
	Rate            float64       // net.bandwidth, KB/s
	Bytes           int           // net.cut-response: bytes let through per connection
	Hold            time.Duration // http.reorder: how long a request is held back
	Gap             time.Duration // http.duplicate: time between the two deliveries
	// Line is where the fault is defined.
	Line int
}

// Active reports whether the fault's window is open at elapsed, the time
// since the load started.
func (f Fault) Active(elapsed time.Duration) bool {
	switch {
	case f.For == 0 && f.Every == 0:
		return true
	case elapsed < f.At:
		return false
	case f.Every == 0:
		return elapsed < f.At+f.For
	}
	return (elapsed-f.At)%f.Every < f.For
}

// Windows returns the fault's windows that open before end (the load's
// length), each cut at end.
func (f Fault) Windows(end time.Duration) [][2]time.Duration {
	if f.For == 0 && f.Every == 0 {
		return [][2]time.Duration{{0, end}}
	}
	var out [][2]time.Duration
	for s := f.At; s < end; s += f.Every {
		out = append(out, [2]time.Duration{s, min(s+f.For, end)})
		if f.Every == 0 || len(out) >= maxFaultWindows {
			break
		}
	}
	return out
}

// maxFaultWindows bounds how many windows one fault opens.
const maxFaultWindows = 10_000

// Family is the fault's family: http, net, target or broken.
func (f Fault) Family() string { return FaultFamily(f.Kind) }

// FaultFamily returns the family of a fault kind (the part before the dot).
func FaultFamily(kind string) string {
	fam, _, _ := strings.Cut(kind, ".")
	return fam
}

// Broken reports whether the fault breaks one of the service's promises on
// purpose, so that a check must fail.
func (f Fault) Broken() bool { return f.Family() == "broken" }

// MatchKey reports whether name is in the fault's key scope.
func (f Fault) MatchKey(name string) bool {
	if len(f.Keys) == 0 {
		return true
	}
	for _, k := range f.Keys {
		if ok, _ := path.Match(k, name); ok {
			return true
		}
	}
	return false
}

// FaultKindSpec describes one fault kind for validation and --help.
type FaultKindSpec struct {
	Summary string
	// Params lists the parameters the kind accepts; Required those it needs.
	Params, Required []string
	// Scope lists the scope fields that apply (services, ops, keys,
	// fraction).
	Scope []string
	// Check is, for a broken promise, the check that must fail.
	Check string
}

var (
	httpScope = []string{"services", "ops", "keys", "fraction"}
	netScope  = []string{"services", "fraction"}
	smbScope  = []string{"fraction"}
)

// FaultKinds are the fault kinds, by name.
var FaultKinds = map[string]FaultKindSpec{
	"http.server-busy":    {Summary: "answer 503 ServerBusy without forwarding", Scope: httpScope},
	"http.internal-error": {Summary: "answer 500 InternalError without forwarding", Scope: httpScope},
	"http.timeout":        {Summary: "answer 500 OperationTimedOut without forwarding", Scope: httpScope},
	"http.timeout-after":  {Summary: "forward, let the service apply, then answer 500 OperationTimedOut (applied but unacknowledged)", Scope: httpScope},
	"http.drop-response":  {Summary: "forward, let the service apply, then close the connection without an answer (applied but unacknowledged)", Scope: httpScope},
	"http.duplicate":      {Summary: "deliver the request twice (as a retry after a lost response does); the client gets the second answer", Params: []string{"gap"}, Scope: httpScope},
	"http.reorder":        {Summary: "hold a request back so that later ones overtake it", Params: []string{"hold"}, Scope: httpScope},

	"net.latency":      {Summary: "add latency with jitter to every byte stream (Toxiproxy latency)", Params: []string{"latency", "jitter"}, Required: []string{"latency"}, Scope: netScope},
	"net.bandwidth":    {Summary: "cap the bandwidth of responses, in KB/s (Toxiproxy bandwidth)", Params: []string{"rate"}, Required: []string{"rate"}, Scope: netScope},
	"net.reset-before": {Summary: "reset the connection when a request arrives, before it is forwarded (Toxiproxy reset_peer upstream)", Scope: netScope},
	"net.reset-after":  {Summary: "reset the connection when the answer comes back, after the request was forwarded (Toxiproxy reset_peer downstream)", Scope: netScope},
	"net.blackhole":    {Summary: "accept connections and data, never answer (Toxiproxy timeout 0)", Scope: netScope},
	"net.cut-response": {Summary: "close the connection part way through a response (Toxiproxy limit_data downstream)", Params: []string{"bytes"}, Scope: netScope},

	"target.pause": {Summary: "freeze the managed Azurite (SIGSTOP) for the window, then SIGCONT"},
	"target.stop":  {Summary: "stop the managed Azurite cleanly (SIGTERM) for the window, then restart it on the same disk and ports"},
	"target.crash": {Summary: "kill the managed Azurite (SIGKILL) for the window, then restart it on the same disk and ports; may lose acknowledged writes (LokiJS saves every 5s)"},

	"broken.strip-if-match":  {Summary: "strip If-Match from conditional writes", Scope: httpScope, Check: "no-lost-updates"},
	"broken.second-lease":    {Summary: "grant a lease to a contender while another holds it", Scope: httpScope, Check: "lease-exclusion"},
	"broken.early-visible":   {Summary: "make a received message visible again before its timeout", Scope: httpScope, Check: "exclusive-visibility"},
	"broken.partial-batch":   {Summary: "apply only part of a table batch", Scope: httpScope, Check: "batch-atomicity"},
	"broken.stale-read":      {Summary: "serve a read from an older version", Scope: httpScope, Check: "version-chain"},
	"broken.strip-appendpos": {Summary: "strip x-ms-blob-condition-appendpos from Append Block (append at the end instead of refusing)", Scope: httpScope, Check: "append-log"},

	"broken.smb-share-access": {Summary: "rewrite the share access of SMB opens (CREATE) to read|write|delete, so the server grants opens whose modes conflict (target samba, unsigned sessions)", Scope: smbScope, Check: "share-modes"},
	"broken.smb-lock-shared":  {Summary: "rewrite exclusive SMB byte-range locks (LOCK) to shared (target samba, unsigned sessions)", Scope: smbScope, Check: "byte-range-locks"},
	"broken.smb-keep-file":    {Summary: "turn every SMB delete (SET_INFO delete disposition, FILE_DELETE_ON_CLOSE) into keep, so the file is never delete-pending (target samba, unsigned sessions)", Scope: smbScope, Check: "delete-pending"},
	"broken.smb-lease-write":  {Summary: "tell SMB lease holders they were granted read-write-handle caching whatever the server granted (CREATE responses; target samba, unsigned sessions)", Scope: smbScope, Check: "lease-breaks"},
}

// IsSMBFault reports whether kind is a broken promise of the SMB stream
// (broken.smb-*, target kind samba).
func IsSMBFault(kind string) bool { return strings.HasPrefix(kind, "broken.smb-") }

// FaultKindNames returns the fault kinds in documentation order.
func FaultKindNames() []string {
	return []string{
		"http.server-busy", "http.internal-error", "http.timeout", "http.timeout-after", "http.drop-response", "http.duplicate", "http.reorder",
		"net.latency", "net.bandwidth", "net.reset-before", "net.reset-after", "net.blackhole", "net.cut-response",
		"target.pause", "target.stop", "target.crash",
		"broken.strip-if-match", "broken.second-lease", "broken.early-visible", "broken.partial-batch", "broken.stale-read",
		"broken.strip-appendpos",
		"broken.strip-seqnum",
		"broken.smb-share-access", "broken.smb-lock-shared", "broken.smb-keep-file", "broken.smb-lease-write",
	}
}

// FaultServices are the services a fault's scope may name.
// "file" is the SMB stream of a samba target.
var FaultServices = []string{"blob", "queue", "table", "file"}

// FaultOps are the operation kinds a fault's scope may name: what the
// proxy can tell from a request alone.
var FaultOps = []string{
	"blob.get", "blob.put", "blob.block", "blob.commit", "blob.lease", "blob.setmeta", "blob.delete",
	"container.create", "container.delete", "container.lease", "container.setmeta", "container.setacl", "container.get", "container.list",
	"table.get", "table.query", "table.insert", "table.update", "table.merge", "table.delete", "table.batch", "table.create",
	"queue.put", "queue.get", "queue.peek", "queue.update", "queue.delete", "queue.create",
}

// faultFields are the fields of one fault.
var faultFields = []string{"name", "kind", "at", "for", "every", "services", "ops", "keys", "fraction", "latency", "jitter", "rate", "bytes", "hold", "gap"}

// faultParams are the fault fields that are kind parameters.
var faultParams = []string{"latency", "jitter", "rate", "bytes", "hold", "gap"}

// describeFaultKinds lists the kinds with their summaries, for errors.
func describeFaultKinds() string {
	return strings.Join(FaultKindNames(), ", ")
}

// faultDefaultName is a fault's name when the file gives none.
func faultDefaultName(kind string, i int) string {
	return fmt.Sprintf("%s-%d", kind, i+1)
}
