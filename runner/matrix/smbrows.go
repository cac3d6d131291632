package matrix

import (
	"strings"

	"github.com/stormcheck/stormcheck/scenarios"
)

// SMBScenarios are the fault matrix's rows against a managed Samba (target
// kind samba, started for each cell): one per SMB workload. They take the
// net.* faults (on the SMB connections) and the broken.smb-* broken
// promises; every other kind acts on HTTP or on Azurite and is n/a. They
// need root and Samba (installed with apt-get when missing), so they run
// only when asked for (stormcheck matrix --scenarios).
//
// delete-pending races two actors: with more, Samba 4.17's race (docs/smb.md)
// also produces shapes the check cannot tell from a broken promise.
var SMBScenarios = []Scenario{
	{Name: "files-share-modes", Workload: "{name: w, kind: files.share-modes, actors: 6, keys: 2, params: {read_fraction: 0.4}}"},
	{Name: "files-locks", Workload: "{name: w, kind: files.byte-range-locks, actors: 4, keys: 2}"},
	{Name: "files-leases", Workload: "{name: w, kind: files.leases, actors: 4, keys: 2, params: {read_fraction: 0.5}}"},
	{Name: "files-delete-pending", Workload: "{name: w, kind: files.delete-pending, actors: 2, keys: 2, params: {read_fraction: 0.7}}"},
}

// smbRow reports whether s is a row against a managed Samba: its workload
// is an SMB kind (files.*, not the File REST ones, which need an account).
func smbRow(s Scenario) bool {
	return strings.Contains(s.Workload, "kind: files.") && !strings.Contains(s.Workload, "kind: files.rest-") && !strings.Contains(s.Workload, "kind: files.interplay")
}

// smbFloors are the SMB checks' floors: the share of what each could judge
// that it must decide in a cell with a net.* fault. Their units are not
// the core checks' (each check's Decided says what it counts): share-modes
// decides the granted opens of all opens (the rest were refused, which it
// does not judge), delete-pending its claims per open, byte-range-locks
// the overlapping lock pairs and granted I/O of all locks and I/O, and
// lease-breaks the opens that met a write-caching lease of all opens. So
// the share a check decides is set by its workload's mix, about the same
// with or without a fault (3 s cells under each net.* fault: share-modes
// 24-29%, byte-range-locks 60-62%, lease-breaks 14-16%, delete-pending
// 31-41%); each floor is about half the lowest, so a check that stops
// deciding under a fault falls under it.
var smbFloors = map[string]float64{
	"share-modes":      0.10,
	"byte-range-locks": 0.30,
	"lease-breaks":     0.05,
	"delete-pending":   0.15,
}

// smbApplies says whether fault kind applies to an SMB row, and why not.
func smbApplies(kind string) (bool, string) {
	if scenarios.IsSMBFault(kind) || scenarios.FaultFamily(kind) == "net" {
		return true, ""
	}
	return false, "n/a (acts on HTTP or on Azurite: the SMB rows run on Samba)"
}
