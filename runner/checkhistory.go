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
// Each checker runs on a goroutine of its own (checkWorkers), fed the
// batches the reader decodes ahead; it still sees its workload's operations
// one at a time, in history order.
//
// A history that ends inside a record (a killed run, a full disk) is checked
// up to its last whole record: the results come back with an error that
// checks.IsTruncated recognizes.
func CheckHistory(path string, sc *scenarios.Scenario, observe ...func(*checks.Op)) ([]checks.Result, error) {
	var all []boundCheck
	var whole, locals []int      // indices in all: fed in the main pass; fed group by group
	localIn := map[string]bool{} // workloads with a key-local check
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
			if _, ok := c.(checks.KeyLocal); ok {
				locals = append(locals, len(all))
				localIn[w.Name] = true
			} else {
				whole = append(whole, len(all))
			}
			all = append(all, boundCheck{w.Name, c})
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
	}
	for _, i := range locals {
		all[i].c.(checks.KeyLocal).Groups(groups)
	}
	if sp == nil {
		whole, locals = append(whole, locals...), nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("checks: %w", err)
	}
	defer f.Close()
	read := checks.ReadHistoryBatches
	if sp != nil && len(whole) == 0 && len(observe) == 0 {
		// Every check is fed from the spill: this pass only routes the
		// records to their groups, by workload and key.
		read = checks.RouteHistoryBatches
	}
	mainW := startCheckWorkers(pick(all, whole))
	readErr := read(f, func(ops []checks.Op, line func(int) []byte) error {
		if len(whole) > 0 {
			mainW.feed(ops)
		}
		for i := range ops {
			op := &ops[i]
			for _, f := range observe {
				f(op)
			}
			if sp != nil && localIn[op.Workload] {
				if err := sp.write(op, line(i)); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if readErr != nil && !checks.IsTruncated(readErr) {
		mainW.abandon()
		return nil, fmt.Errorf("checks: %s: %w", path, readErr)
	}
	out := make([]checks.Result, len(all))
	var localOut []checks.Result
	if sp != nil {
		if localOut, err = sp.judge(pick(all, locals)); err != nil {
			mainW.abandon()
			return nil, fmt.Errorf("checks: %w", err)
		}
	}
	for j, r := range mainW.finish() {
		out[whole[j]] = r
	}
	for j, r := range localOut {
		out[locals[j]] = r
	}
	if readErr != nil {
		return out, fmt.Errorf("checks: %s: %w", path, readErr)
	}
	return out, nil
}

// pick is the checkers of all at indices idx, in that order.
func pick(all []boundCheck, idx []int) []boundCheck {
	out := make([]boundCheck, len(idx))
	for j, i := range idx {
		out[j] = all[i]
	}
	return out
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
	keys  map[keyHint]*spilled // every key written, its group and records
}

// spilled is one key's group and how many of its records were spilled.
type spilled struct{ group, ops int }

func newSpill(groups int) (*spill, error) {
	dir, err := os.MkdirTemp("", "stormcheck-check-")
	if err != nil {
		return nil, err
	}
	s := &spill{dir: dir, keys: map[keyHint]*spilled{}}
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
	k := s.keys[keyHint{op.Workload, op.Key, 0}]
	if k == nil {
		k = &spilled{group: s.groupOf(op)}
		s.keys[keyHint{op.Workload, op.Key, 0}] = k
	}
	k.ops++
	w := s.bufs[k.group]
	if _, err := w.Write(line); err != nil {
		return fmt.Errorf("spill: %w", err)
	}
	if _, err := w.Write([]byte{'\n'}); err != nil {
		return fmt.Errorf("spill: %w", err)
	}
	return nil
}

// judge feeds each group to the key-local checks of its workloads and
// ends the group, one group at a time, and returns their results in the
// order of locals.
func (s *spill) judge(locals []boundCheck) ([]checks.Result, error) {
	for g, w := range s.bufs {
		if err := w.Close(); err != nil {
			return nil, fmt.Errorf("spill: %w", err)
		}
		if err := s.files[g].Close(); err != nil {
			return nil, fmt.Errorf("spill: %w", err)
		}
	}
	hints := make([][]keyHint, len(s.files))
	for k, sp := range s.keys {
		k.ops = sp.ops
		hints[sp.group] = append(hints[sp.group], k)
	}
	cw := startCheckWorkers(locals)
	for g, f := range s.files {
		cw.expect(hints[g])
		rf, err := os.Open(f.Name())
		if err != nil {
			cw.abandon()
			return nil, fmt.Errorf("spill: %w", err)
		}
		// The spill is a file on disk read whole: read ahead of the checkers.
		err = checks.ReadHistoryBatches(s2.NewReader(bufio.NewReaderSize(rf, 64<<10)), func(ops []checks.Op, _ func(int) []byte) error {
			cw.feed(ops)
			return nil
		})
		rf.Close()
		os.Remove(f.Name())
		if err != nil {
			cw.abandon()
			return nil, fmt.Errorf("spill group %d: %w", g, err)
		}
		cw.endGroup()
	}
	return cw.finish(), nil
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
