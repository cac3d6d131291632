package runner

import (
	"bufio"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"

	"github.com/klauspost/compress/s2"
	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/scenarios"
)

// CheckGroupBytes is about how much compressed history one group of keys
// holds when a large history is checked key group by key group (see
// CheckHistory); a plain history counts eight times as much per group. At
// about 37 bytes per operation compressed, 4 MiB is about 110k operations,
// whose checker state is well under 100 MB. Tests lower it.
var CheckGroupBytes int64 = 4 << 20

// maxCheckGroups bounds the groups (and the spill files open at once).
const maxCheckGroups = 1024

// CheckHistory runs the scenario's checks over a history file (compressed
// or plain), each on every workload whose kind it applies to, reading the
// file once; observe, if given, sees every operation of that same pass.
//
// Memory stays bounded whatever the history's length: checks whose verdict
// on a key depends on that key alone (checks.KeyLocal) are fed a large
// history one group of keys at a time. During the one pass over the history
// each record goes, unchanged, to its group's spill file (s2-compressed, in
// a temporary directory removed afterwards); then each group is read back
// and judged, and its keys' state dropped, before the next. Other checks see
// the history in the main pass, as it comes.
//
// A history that ends inside a record (a killed run, a full disk) is checked
// up to its last whole record: the results come back with an error that
// checks.IsTruncated recognizes.
func CheckHistory(path string, sc *scenarios.Scenario, observe ...func(*checks.Op)) ([]checks.Result, error) {
	type bound struct {
		workload string
		c        checks.Checker
	}
	var all []bound
	whole := map[string][]checks.Checker{}  // fed in the main pass
	local := map[string][]checks.KeyLocal{} // fed group by group
	var locals []checks.KeyLocal
	for _, name := range sc.Checks {
		for _, w := range sc.Workloads {
			if !scenarios.AppliesTo(name, w.Kind) {
				continue
			}
			c, err := checks.New(name)
			if err != nil {
				return nil, err
			}
			if ta, ok := c.(checks.TargetAware); ok {
				ta.SetTarget(sc.Target.Kind)
			}
			all = append(all, bound{w.Name, c})
			if kl, ok := c.(checks.KeyLocal); ok {
				local[w.Name] = append(local[w.Name], kl)
				locals = append(locals, kl)
			} else {
				whole[w.Name] = append(whole[w.Name], c)
			}
		}
	}
	groups := 1
	if len(locals) > 0 {
		groups = checkGroups(path)
	}
	var sp *spill
	if groups > 1 {
		var err error
		if sp, err = newSpill(groups); err != nil {
			return nil, fmt.Errorf("checks: %w", err)
		}
		defer sp.remove()
	} else {
		for w, cs := range local {
			for _, c := range cs {
				whole[w] = append(whole[w], c)
			}
		}
	}
	for _, c := range locals {
		c.Groups(groups)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("checks: %w", err)
	}
	defer f.Close()
	read := checks.ReadHistoryLines
	if sp != nil && len(whole) == 0 && len(observe) == 0 {
		// Every check is fed from the spill: this pass only routes the
		// records to their groups, by workload and key.
		read = checks.RouteHistoryLines
	}
	readErr := read(f, func(op *checks.Op, line []byte) error {
		for _, c := range whole[op.Workload] {
			c.Observe(op)
		}
		for _, f := range observe {
			f(op)
		}
		if sp != nil && len(local[op.Workload]) > 0 {
			return sp.write(op, line)
		}
		return nil
	})
	if readErr != nil && !checks.IsTruncated(readErr) {
		return nil, fmt.Errorf("checks: %s: %w", path, readErr)
	}
	if sp != nil {
		if err := sp.judge(local, locals); err != nil {
			return nil, fmt.Errorf("checks: %w", err)
		}
	}
	out := make([]checks.Result, len(all))
	for i, b := range all {
		out[i] = b.c.Finish()
		out[i].Workload = b.workload
	}
	if readErr != nil {
		return out, fmt.Errorf("checks: %s: %w", path, readErr)
	}
	return out, nil
}

// checkGroups decides how many key groups a history is checked in, from
// its size on disk: 1 (no spill) for all but large histories.
func checkGroups(path string) int {
	fi, err := os.Stat(path)
	if err != nil {
		return 1
	}
	per := CheckGroupBytes
	if f, err := os.Open(path); err == nil {
		head := make([]byte, 4)
		if n, _ := f.Read(head); n < 4 || head[0] != 0x28 || head[1] != 0xb5 {
			per *= 8 // plain JSON lines: about eight times the compressed size
		}
		f.Close()
	}
	return int(min(max(1, (fi.Size()+per-1)/per), maxCheckGroups))
}

// spill holds the key groups of one check on disk.
type spill struct {
	dir   string
	files []*os.File
	bufs  []*s2.Writer
}

func newSpill(groups int) (*spill, error) {
	dir, err := os.MkdirTemp("", "stormcheck-check-")
	if err != nil {
		return nil, err
	}
	s := &spill{dir: dir}
	for g := range groups {
		f, err := os.Create(filepath.Join(dir, fmt.Sprintf("group-%04d.jsonl.s2", g)))
		if err != nil {
			s.remove()
			return nil, err
		}
		s.files = append(s.files, f)
		s.bufs = append(s.bufs, s2.NewWriter(f, s2.WriterConcurrency(1), s2.WriterBlockSize(64<<10)))
	}
	return s, nil
}

// groupOf puts every operation of one key of one workload in one group.
func (s *spill) groupOf(op *checks.Op) int {
	h := fnv.New64a()
	h.Write([]byte(op.Workload))
	h.Write([]byte{0})
	h.Write([]byte(op.Key))
	return int(h.Sum64() % uint64(len(s.files)))
}

func (s *spill) write(op *checks.Op, line []byte) error {
	w := s.bufs[s.groupOf(op)]
	if _, err := w.Write(line); err != nil {
		return fmt.Errorf("spill: %w", err)
	}
	if _, err := w.Write([]byte{'\n'}); err != nil {
		return fmt.Errorf("spill: %w", err)
	}
	return nil
}

// judge feeds each group to the key-local checks of its workloads and
// ends the group, one group at a time.
func (s *spill) judge(local map[string][]checks.KeyLocal, all []checks.KeyLocal) error {
	for g, w := range s.bufs {
		if err := w.Close(); err != nil {
			return fmt.Errorf("spill: %w", err)
		}
		if err := s.files[g].Close(); err != nil {
			return fmt.Errorf("spill: %w", err)
		}
	}
	for g, f := range s.files {
		rf, err := os.Open(f.Name())
		if err != nil {
			return fmt.Errorf("spill: %w", err)
		}
		// The spill is a file on disk read whole: read ahead of the checkers.
		err = checks.ReadHistoryLines(s2.NewReader(bufio.NewReaderSize(rf, 64<<10)), func(op *checks.Op, _ []byte) error {
			for _, c := range local[op.Workload] {
				c.Observe(op)
			}
			return nil
		})
		rf.Close()
		os.Remove(f.Name())
		if err != nil {
			return fmt.Errorf("spill group %d: %w", g, err)
		}
		for _, c := range all {
			c.EndGroup()
		}
	}
	return nil
}

func (s *spill) remove() { os.RemoveAll(s.dir) }

// HistoryPath is the history file of a results directory: the compressed
// one, or history.jsonl as runs before compression wrote it.
func HistoryPath(dir string) string {
	p := filepath.Join(dir, HistoryFile)
	if _, err := os.Stat(p); err != nil {
		if _, err2 := os.Stat(filepath.Join(dir, LegacyHistoryFile)); err2 == nil {
			return filepath.Join(dir, LegacyHistoryFile)
		}
	}
	return p
}
