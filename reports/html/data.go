package html

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/stormcheck/stormcheck/reports"
)

// This file reads a run's HdrHistogram logs (hlog/, written by Metrics)
// into per-second latency percentiles for the HTML report.

// LatencySeries is one (workload, op)'s uncorrected latency second by
// second, from its .hlog: one entry per logged interval (seconds without
// operations have none).
type LatencySeries struct {
	Workload, Op string
	// File is the log's name inside the hlog directory.
	File string
	// Second is each interval's start, in seconds since the run started.
	Second []float64
	// P50, P90, P99 and Max are milliseconds; Count the interval's ops.
	P50, P90, P99, Max []float64
	Count              []int64
}

// latencyKey names a series: workload and op.
type LatencyKeyOf struct{ Workload, Op string }

// hlogData is everything read from a run's hlog directory.
type hlogData struct {
	// dirMissing is set when the directory does not exist (or none was
	// given).
	dirMissing bool
	Series     map[LatencyKeyOf]*LatencySeries
	// corrected are the logs of corrected latency (hlog/corrected/),
	// empty for runs made before they were written.
	corrected map[LatencyKeyOf]*LatencySeries
	// problems are files that could not be read, one line each.
	problems []string
}

// readHlogDir reads every *.hlog in dir, and in its corrected directory. A
// missing directory is not an error (the page says so); an unreadable file
// is noted and skipped.
func ReadHlogDir(dir string) *hlogData {
	d := &hlogData{Series: map[LatencyKeyOf]*LatencySeries{}, corrected: map[LatencyKeyOf]*LatencySeries{}}
	if dir == "" {
		d.dirMissing = true
		return d
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		d.dirMissing = true
		return d
	}
	d.readLogs(dir, d.Series)
	d.readLogs(filepath.Join(dir, reports.CorrectedHlogDir), d.corrected)
	return d
}

// readLogs reads the *.hlog files of dir into series.
func (d *hlogData) readLogs(dir string, series map[LatencyKeyOf]*LatencySeries) {
	paths, _ := filepath.Glob(filepath.Join(dir, "*.hlog"))
	sort.Strings(paths)
	for _, p := range paths {
		ls, err := ReadLatencyLog(p)
		if err != nil {
			d.problems = append(d.problems, err.Error())
			continue
		}
		k := LatencyKeyOf{ls.Workload, ls.Op}
		if prev := series[k]; prev != nil { // two logs of one series: keep the longer
			if len(prev.Second) >= len(ls.Second) {
				continue
			}
		}
		series[k] = ls
	}
}

// ReadLatencyLog reads one .hlog written by Metrics into per-second
// percentiles. The workload and op come from the log's header comment, or,
// for a log without it, from its name (WORKLOAD.OP.hlog; workload names have
// no dots).
func ReadLatencyLog(path string) (*LatencySeries, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	ls, err := readLatencyLog(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Base(path), err)
	}
	ls.File = filepath.Base(path)
	if ls.Workload == "" && ls.Op == "" {
		name := strings.TrimSuffix(ls.File, ".hlog")
		ls.Workload, ls.Op, _ = strings.Cut(name, ".")
	}
	return ls, nil
}

func readLatencyLog(r io.Reader) (*LatencySeries, error) {
	ls := &LatencySeries{}
	err := reports.ScanLatencyLog(r, func(workload, op string) { ls.Workload, ls.Op = workload, op },
		func(ts float64, h *hdrhistogram.Histogram) error {
			q := h.ValueAtPercentiles([]float64{50, 90, 99})
			ls.Second = append(ls.Second, ts)
			ls.P50 = append(ls.P50, float64(q[50])/1e3)
			ls.P90 = append(ls.P90, float64(q[90])/1e3)
			ls.P99 = append(ls.P99, float64(q[99])/1e3)
			ls.Max = append(ls.Max, float64(h.Max())/1e3)
			ls.Count = append(ls.Count, h.TotalCount())
			return nil
		})
	if err != nil {
		return nil, err
	}
	if len(ls.Second) == 0 && ls.Workload == "" {
		return nil, errors.New("no intervals and no stormcheck header: not a latency log")
	}
	return ls, nil
}
