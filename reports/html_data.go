package reports

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/stormcheck/stormcheck/internal/boundedread"
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
type latencyKey struct{ workload, op string }

// hlogData is everything read from a run's hlog directory.
type hlogData struct {
	// dirMissing is set when the directory does not exist (or none was
	// given).
	dirMissing bool
	series     map[latencyKey]*LatencySeries
	// corrected are the logs of corrected latency (hlog/corrected/),
	// empty for runs made before they were written.
	corrected map[latencyKey]*LatencySeries
	// problems are files that could not be read, one line each.
	problems []string
}

// latencyLogHeader is the comment Metrics writes first in each log.
var latencyLogHeader = regexp.MustCompile(`^#\[stormcheck latency log: workload ("(?:[^"\\]|\\.)*"), op ("(?:[^"\\]|\\.)*")\]`)

// readHlogDir reads every *.hlog in dir, and in its corrected directory. A
// missing directory is not an error (the page says so); an unreadable file
// is noted and skipped.
func readHlogDir(dir string) *hlogData {
	d := &hlogData{series: map[latencyKey]*LatencySeries{}, corrected: map[latencyKey]*LatencySeries{}}
	if dir == "" {
		d.dirMissing = true
		return d
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		d.dirMissing = true
		return d
	}
	d.readLogs(dir, d.series)
	d.readLogs(filepath.Join(dir, CorrectedHlogDir), d.corrected)
	return d
}

// readLogs reads the *.hlog files of dir into series.
func (d *hlogData) readLogs(dir string, series map[latencyKey]*LatencySeries) {
	paths, _ := filepath.Glob(filepath.Join(dir, "*.hlog"))
	sort.Strings(paths)
	for _, p := range paths {
		ls, err := ReadLatencyLog(p)
		if err != nil {
			d.problems = append(d.problems, err.Error())
			continue
		}
		k := latencyKey{ls.Workload, ls.Op}
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
	err := scanLatencyLog(r, func(workload, op string) { ls.Workload, ls.Op = workload, op },
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

// scanLatencyLog reads an HdrHistogram log as Metrics writes it: header
// gets the stormcheck header's workload and op (if the log has one),
// interval each interval's start (seconds since the log's StartTime) and
// histogram, in file order.
func scanLatencyLog(r io.Reader, header func(workload, op string), interval func(ts float64, h *hdrhistogram.Histogram) error) error {
	var startSec float64 // the log's StartTime, to make absolute stamps relative
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), MaxHlogLineBytes)
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		switch {
		case text == "":
			continue
		case strings.HasPrefix(text, "#"):
			if m := latencyLogHeader.FindStringSubmatch(text); m != nil {
				w, _ := strconv.Unquote(m[1])
				o, _ := strconv.Unquote(m[2])
				header(w, o)
			} else if v, ok := strings.CutPrefix(text, "#[StartTime: "); ok {
				if f, err := strconv.ParseFloat(strings.Fields(v)[0], 64); err == nil {
					startSec = f
				}
			}
			continue
		case strings.HasPrefix(text, `"`): // the column legend
			continue
		}
		text, _ = strings.CutPrefix(text, "Tag=")
		if i := strings.IndexByte(text, ','); i >= 0 && !hlogIsNumber(text[:i]) { // a tag
			text = text[i+1:]
		}
		parts := strings.SplitN(text, ",", 4)
		if len(parts) != 4 {
			return fmt.Errorf("line %d: not an interval line", line)
		}
		ts, err := strconv.ParseFloat(parts[0], 64)
		if err != nil {
			return fmt.Errorf("line %d: start timestamp: %v", line, err)
		}
		h, err := hdrhistogram.Decode([]byte(parts[3]))
		if err != nil {
			return fmt.Errorf("line %d: histogram: %v", line, err)
		}
		if startSec > 0 && ts >= startSec-365*24*3600 { // absolute stamps
			ts -= startSec
		}
		if err := interval(ts, h); err != nil {
			return fmt.Errorf("line %d: %w", line, err)
		}
	}
	if errors.Is(sc.Err(), bufio.ErrTooLong) {
		return &boundedread.Error{Line: line + 1, What: "a line of a latency log", Size: -1, Bound: MaxHlogLineBytes}
	}
	return sc.Err()
}

// MaxHlogLineBytes bounds a line of a latency log (hlog/*.hlog) as report,
// compare and merge read it; the log itself may be any length (one line a
// second) and is streamed. An interval line holds one encoded histogram:
// about 400 bytes in a quickstart run, and under 300 KiB for a histogram
// with every one of its 23,552 counters set.
const MaxHlogLineBytes = 16 << 20

func hlogIsNumber(s string) bool {
	_, err := strconv.ParseFloat(s, 64)
	return err == nil
}
