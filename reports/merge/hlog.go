package merge

import (
	"bufio"
	"errors"
	"fmt"
	"iter"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/stormcheck/stormcheck/reports"
)

// MergedLatency is one (workload, op)'s latency over every shard: the sum
// of every interval of every shard's log, plain and corrected (nil when no
// shard had that log).
type MergedLatency struct {
	Latency, Corrected *hdrhistogram.Histogram
}

// LatencyKey names a (workload, op) series.
type LatencyKey struct{ Workload, Op string }

// MergeHlogs merges the shards' latency logs (hlogDirs[i] is shard i's hlog
// directory, shifts[i] its shift onto the merged time line) into outDir,
// one log per (workload, op), plain and corrected as a run writes them.
// Each shard interval of second s (since its start) goes to the merged
// interval of the second its middle falls in: floor(s + 0.5 + shift). The
// histograms are added, never averaged: a merged interval holds every
// value any shard recorded in it, and the returned totals hold every value
// of every interval of every shard, exactly as one histogram of all of
// them. Logs are streamed: one interval per shard is held at a time.
//
// It returns the totals, the files written (as Metrics.HlogFiles names
// them) and what could not be read (a shard's unreadable log is named and
// left out; the caller decides what that means).
func MergeHlogs(hlogDirs []string, shifts []time.Duration, outDir string, origin time.Time) (map[LatencyKey]*MergedLatency, map[string]string, []string, error) {
	type source struct {
		shard int
		path  string
	}
	type seriesID struct {
		key       LatencyKey
		corrected bool
	}
	bySeries := map[seriesID][]source{}
	var problems []string
	for i, dir := range hlogDirs {
		for _, corrected := range []bool{false, true} {
			d := dir
			if corrected {
				d = filepath.Join(dir, reports.CorrectedHlogDir)
			}
			paths, _ := filepath.Glob(filepath.Join(d, "*.hlog"))
			for _, p := range paths {
				k, err := latencyLogKey(p)
				if err != nil {
					problems = append(problems, fmt.Sprintf("shard %d: %v", i, err))
					continue
				}
				id := seriesID{k, corrected}
				bySeries[id] = append(bySeries[id], source{i, p})
			}
		}
	}
	ids := make([]seriesID, 0, len(bySeries))
	for id := range bySeries {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool {
		a, b := ids[i], ids[j]
		if a.key != b.key {
			return a.key.Workload < b.key.Workload || a.key.Workload == b.key.Workload && a.key.Op < b.key.Op
		}
		return !a.corrected && b.corrected
	})
	totals := map[LatencyKey]*MergedLatency{}
	files := map[string]string{}
	names := map[string]bool{}
	for _, id := range ids {
		base := reports.SafeName(id.key.Workload) + "." + reports.SafeName(id.key.Op)
		if id.corrected {
			base = reports.CorrectedHlogDir + "/" + base
		}
		name := base + ".hlog"
		for i := 2; names[name]; i++ {
			name = base + "-" + strconv.Itoa(i) + ".hlog"
		}
		names[name] = true
		var inputs []hlogInput
		for _, src := range bySeries[id] {
			inputs = append(inputs, hlogInput{shard: src.shard, path: src.path, shift: shifts[src.shard]})
		}
		total, bad, err := mergeOneLog(inputs, filepath.Join(outDir, name), id.key, id.corrected, origin)
		problems = append(problems, bad...)
		if err != nil {
			return totals, files, problems, err
		}
		t := totals[id.key]
		if t == nil {
			t = &MergedLatency{}
			totals[id.key] = t
		}
		if id.corrected {
			t.Corrected = total
		} else {
			t.Latency = total
			files["hlog "+id.key.Workload+" "+id.key.Op] = name
		}
	}
	return totals, files, problems, nil
}

// latencyLogKey reads a log's workload and op from its header (or its
// file name, as ReadLatencyLog does for logs without one).
func latencyLogKey(path string) (LatencyKey, error) {
	f, err := os.Open(path)
	if err != nil {
		return LatencyKey{}, err
	}
	defer f.Close()
	var k LatencyKey
	errFound := errors.New("found")
	err = reports.ScanLatencyLog(f, func(w, op string) { k = LatencyKey{w, op} }, func(float64, *hdrhistogram.Histogram) error { return errFound })
	if err != nil && !errors.Is(err, errFound) {
		return k, fmt.Errorf("%s: %w", path, err)
	}
	if k == (LatencyKey{}) {
		name := filepath.Base(path)
		name = name[:len(name)-len(".hlog")]
		for i := 0; i < len(name); i++ {
			if name[i] == '.' {
				return LatencyKey{name[:i], name[i+1:]}, nil
			}
		}
		return k, fmt.Errorf("%s: no stormcheck header and no WORKLOAD.OP name", path)
	}
	return k, nil
}

type hlogInput struct {
	shard int
	path  string
	shift time.Duration
}

// hlogHead is one shard log's next interval, on the merged time line.
type hlogHead struct {
	sec  int64
	h    *hdrhistogram.Histogram
	next func() (hlogInterval, bool)
	stop func()
	in   hlogInput
}

type hlogInterval struct {
	sec int64
	h   *hdrhistogram.Histogram
	err error
}

// mergeOneLog writes one merged log from the shards' logs of one series and
// returns the sum of all their intervals.
func mergeOneLog(inputs []hlogInput, out string, key LatencyKey, corrected bool, origin time.Time) (*hdrhistogram.Histogram, []string, error) {
	var problems []string
	var heads []*hlogHead
	defer func() {
		for _, h := range heads {
			h.stop()
		}
	}()
	advance := func(hd *hlogHead) bool {
		iv, ok := hd.next()
		if ok && iv.err != nil {
			problems = append(problems, fmt.Sprintf("shard %d: %s: %v (its later intervals are left out of the merged log)", hd.in.shard, hd.in.path, iv.err))
			ok = false
		}
		if !ok {
			hd.stop()
			return false
		}
		hd.sec, hd.h = iv.sec, iv.h
		return true
	}
	for _, in := range inputs {
		next, stop := iter.Pull(readShardLog(in))
		hd := &hlogHead{next: next, stop: stop, in: in}
		if advance(hd) {
			heads = append(heads, hd)
		}
	}
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return nil, problems, err
	}
	f, err := os.Create(out)
	if err != nil {
		return nil, problems, err
	}
	defer f.Close()
	bw := bufio.NewWriter(f)
	lw, err := reports.NewLatencyLogWriter(bw, key.Workload, key.Op, corrected, origin.UnixMilli())
	if err != nil {
		return nil, problems, err
	}
	total := reports.NewHistogram()
	for len(heads) > 0 {
		sec := int64(math.MaxInt64)
		for _, hd := range heads {
			sec = min(sec, hd.sec)
		}
		iv := reports.NewHistogram()
		iv.SetStartTimeMs(sec * 1000)
		iv.SetEndTimeMs((sec + 1) * 1000)
		live := heads[:0]
		for _, hd := range heads {
			keep := true
			for keep && hd.sec == sec {
				iv.Merge(hd.h)
				keep = advance(hd)
			}
			if keep {
				live = append(live, hd)
			}
		}
		heads = live
		total.Merge(iv)
		if err := lw.OutputIntervalHistogram(iv); err != nil {
			return nil, problems, err
		}
	}
	if err := bw.Flush(); err != nil {
		return nil, problems, err
	}
	if err := f.Sync(); err != nil {
		return nil, problems, err
	}
	return total, problems, f.Close()
}

// readShardLog yields a shard log's intervals on the merged time line; a
// read error is the last thing it yields.
func readShardLog(in hlogInput) iter.Seq[hlogInterval] {
	return func(yield func(hlogInterval) bool) {
		f, err := os.Open(in.path)
		if err != nil {
			yield(hlogInterval{err: err})
			return
		}
		defer f.Close()
		errStop := errors.New("stop")
		shift := in.shift.Seconds()
		err = reports.ScanLatencyLog(f, func(string, string) {}, func(ts float64, h *hdrhistogram.Histogram) error {
			if !yield(hlogInterval{sec: int64(math.Floor(ts + 0.5 + shift)), h: h}) {
				return errStop
			}
			return nil
		})
		if err != nil && !errors.Is(err, errStop) {
			yield(hlogInterval{err: err})
		}
	}
}
