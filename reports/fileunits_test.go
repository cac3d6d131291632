package reports_test

import (
	"slices"
	"testing"
	"time"

	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/reports"
	"github.com/stormcheck/stormcheck/reports/text"
)

// TestFilesOpsInTheReports: SMB calls are not HTTP. An acknowledged SMB
// call is not listed among the answers that were not 2xx (never as "none
// (no response)"), a refused one is listed with its NT status,
// one with no answer as "(no answer)"; File REST answers stay HTTP rows.
// Files calls count against the per-file and per-share targets of Azure
// Files and not against the account's request target, which counts the
// blob calls alone.
func TestFilesOpsInTheReports(t *testing.T) {
	m := reports.NewMetrics(reports.MetricsOptions{Workloads: []string{"smb", "blobs"}})
	at := int64(0)
	rec := func(w, kind, key string, o checks.Outcome, out checks.Output) {
		at += int64(time.Millisecond)
		m.Record(&checks.Op{Actor: 0, Workload: w, Kind: kind, Key: key, Attempt: 1, Intended: at, Call: at, Return: at + 1000, Outcome: o, Out: out})
	}
	for range 5 {
		rec("smb", "files.open", "f1", checks.OK, checks.Output{})
		rec("smb", "files.close", "f1", checks.OK, checks.Output{})
	}
	rec("smb", "files.open", "f1", checks.Conflict, checks.Output{ErrorCode: "STATUS_SHARING_VIOLATION"})
	rec("smb", "files.open", "f2", checks.Unknown, checks.Output{Err: "timeout"})
	rec("smb", "files.rest.get", "f2", checks.Conflict, checks.Output{Status: 409, ErrorCode: "SharingViolation"})
	rec("smb", "files.rest.get", "f2", checks.OK, checks.Output{Status: 200})
	rec("blobs", "blob.put", "k0", checks.OK, checks.Output{Status: 201})
	rec("blobs", "blob.put", "k0", checks.OK, checks.Output{Status: 201})

	ws, _ := m.Summary(time.Second)
	var rows [][]string
	for _, w := range ws {
		rows = append(rows, text.ResponseRows(w.Ops)...)
	}
	want := [][]string{
		{"files.open", "SMB", "STATUS_SHARING_VIOLATION", "1", "14.3%"},
		{"files.open", "SMB", "(no answer)", "1", "14.3%"},
		{"files.rest.get", "409", "SharingViolation", "1", "50.0%"},
	}
	for _, r := range rows {
		if r[1] == "none" {
			t.Errorf("an SMB call shown as no response: %v", r)
		}
	}
	for _, w := range want {
		if !slices.ContainsFunc(rows, func(r []string) bool { return slices.Equal(r, w) }) {
			t.Errorf("row %v missing from %v", w, rows)
		}
	}
	if len(rows) != len(want) {
		t.Errorf("rows %v, want %v", rows, want)
	}

	units := m.Units(func(string) time.Duration { return time.Second }, nil, nil)
	got := map[reports.UnitKind]map[string]reports.UnitSummary{}
	for _, u := range units {
		if got[u.Kind] == nil {
			got[u.Kind] = map[string]reports.UnitSummary{}
		}
		got[u.Kind][u.Name] = u
	}
	if f := got[reports.UnitFile]["f1"]; f.Amount != 10 || f.Target != 1000 || f.Measure != "I/O" {
		t.Errorf("file f1: %+v", f)
	}
	if s := got[reports.UnitShare][reports.ShareUnit]; s.Amount != 11 || s.Target != 20000 || s.Workload != "smb" {
		t.Errorf("share: %+v", s) // 10 SMB calls on f1 and the REST get on f2 acknowledged
	}
	if a := got[reports.UnitAccount]["account"]; a.Amount != 2 {
		t.Errorf("account counts %d operations, want the 2 blob calls only", a.Amount)
	}
}
