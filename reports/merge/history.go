package merge

import (
	"bufio"
	"container/heap"
	"errors"
	"fmt"
	"io"
	"iter"
	"os"
	"time"

	"github.com/stormcheck/stormcheck/checks"
)

// HistoryShard is one shard's history as MergeHistories reads it.
type HistoryShard struct {
	// Path is the history file (compressed or plain).
	Path string
	// Shift moves the shard's times onto the merged time line (its
	// Started minus the merged origin).
	Shift time.Duration
	// Widen is how much every interval of the shard is widened on each
	// side in the merged history: Intended and Call earlier, Return later.
	Widen time.Duration
}

// MergeHistories merges the shards' histories into one, streaming: each
// shard's history is read in its own order (the order its records were
// written, by return) and the shards' are merged k-way by rebased return
// time (ties: lower shard first), so that only one record per shard is held
// at a time. Every record's times are shifted onto the merged time line;
// observe, if given, sees it so (shard index, op), before widening. When out
// is not nil, each record is then widened by its shard's Widen, renumbered
// (Seq in merged order, from 1) and written to out as a history line.
//
// It returns the records each shard gave. A shard history cut short
// (checks.IsTruncated) is merged up to its last whole record and its
// truncation is returned among the errors; any other read or write error
// stops the merge.
func MergeHistories(shards []HistoryShard, out io.Writer, observe func(shard int, op *checks.Op)) (counts []int64, truncated []error, err error) {
	counts = make([]int64, len(shards))
	h := &historyHeap{}
	var stops []func()
	defer func() {
		for _, s := range stops {
			s()
		}
	}()
	pull := func(c *historyCursor) error {
		r, ok := c.next()
		if !ok {
			return nil
		}
		if r.err != nil {
			if checks.IsTruncated(r.err) {
				truncated = append(truncated, fmt.Errorf("shard history %s: %w", shards[c.shard].Path, r.err))
				return nil
			}
			return fmt.Errorf("shard history %s: %w", shards[c.shard].Path, r.err)
		}
		shift := int64(shards[c.shard].Shift)
		r.op.Intended += shift
		r.op.Call += shift
		r.op.Return += shift
		c.op = r.op
		heap.Push(h, c)
		return nil
	}
	for i, s := range shards {
		next, stop := iter.Pull(readHistorySeq(s.Path))
		stops = append(stops, stop)
		if err := pull(&historyCursor{shard: i, next: next}); err != nil {
			return counts, truncated, err
		}
	}
	var bw *bufio.Writer
	if out != nil {
		bw = bufio.NewWriterSize(out, 256<<10)
	}
	var line []byte
	var seq uint64
	for h.Len() > 0 {
		c := heap.Pop(h).(*historyCursor)
		op := c.op
		counts[c.shard]++
		if observe != nil {
			observe(c.shard, op)
		}
		if bw != nil {
			w := int64(shards[c.shard].Widen)
			op.Intended -= w
			op.Call -= w
			op.Return += w
			seq++
			op.Seq = seq
			line = op.AppendJSONLine(line[:0])
			if _, err := bw.Write(line); err != nil {
				return counts, truncated, fmt.Errorf("merged history: %w", err)
			}
		}
		if err := pull(c); err != nil {
			return counts, truncated, err
		}
	}
	if bw != nil {
		if err := bw.Flush(); err != nil {
			return counts, truncated, fmt.Errorf("merged history: %w", err)
		}
	}
	return counts, truncated, nil
}

// MergeHistoryFile is MergeHistories into a compressed history file at
// path (created; it must not exist).
func MergeHistoryFile(path string, shards []HistoryShard, observe func(shard int, op *checks.Op)) ([]int64, []error, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	z, err := checks.NewHistoryWriter(f)
	if err != nil {
		return nil, nil, err
	}
	counts, truncated, err := MergeHistories(shards, z, observe)
	if cerr := z.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("merged history: %w", cerr)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil && cerr != nil {
		err = cerr
	}
	return counts, truncated, err
}

type historyRecord struct {
	op  *checks.Op
	err error
}

// readHistorySeq yields a history file's records; an error (a truncation
// included) is the last thing it yields.
func readHistorySeq(path string) iter.Seq[historyRecord] {
	return func(yield func(historyRecord) bool) {
		f, err := os.Open(path)
		if err != nil {
			yield(historyRecord{err: err})
			return
		}
		defer f.Close()
		errStop := errors.New("stop")
		err = checks.ReadHistory(f, func(op *checks.Op) error {
			if !yield(historyRecord{op: op}) {
				return errStop
			}
			return nil
		})
		if err != nil && !errors.Is(err, errStop) {
			yield(historyRecord{err: err})
		}
	}
}

// historyCursor is one shard's next record.
type historyCursor struct {
	shard int
	op    *checks.Op
	next  func() (historyRecord, bool)
}

type historyHeap []*historyCursor

func (h historyHeap) Len() int { return len(h) }
func (h historyHeap) Less(i, j int) bool {
	if h[i].op.Return != h[j].op.Return {
		return h[i].op.Return < h[j].op.Return
	}
	return h[i].shard < h[j].shard
}
func (h historyHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *historyHeap) Push(x any)   { *h = append(*h, x.(*historyCursor)) }
func (h *historyHeap) Pop() any {
	old := *h
	c := old[len(old)-1]
	*h = old[:len(old)-1]
	return c
}
