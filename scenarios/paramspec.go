package scenarios

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// ParamSpec describes one workload param for people and tools: what it
// does, its type, its allowed values and its default. `stormcheck kinds
// KIND`, `stormcheck init` and the JSON Schema for scenario files are made
// from these. The loader (params.go, defaults.go) is what decides;
// TestParamSpecsMatchTheLoader feeds it each bound, the values just
// outside, and a workload without the param, and fails when this table and
// the loader disagree.
type ParamSpec struct {
	Name string
	Doc  string
	// Type is ParamInteger, ParamNumber, ParamDuration, ParamLease or
	// ParamEnum.
	Type string
	// Min and Max bound an integer or a number (inclusive; ExclusiveMin:
	// Min itself is refused). NoMax: no upper bound.
	Min, Max     float64
	ExclusiveMin bool
	NoMax        bool
	// MinDuration and MaxDuration bound a duration (NoMax: no upper
	// bound); WholeSeconds: only whole seconds.
	MinDuration, MaxDuration time.Duration
	WholeSeconds             bool
	// Enum lists the allowed strings of an enum.
	Enum []string
	// Default is the value a workload without the param gets (an int,
	// float64, time.Duration or string); DefaultText, when set, describes a
	// default computed from other fields instead.
	Default     any
	DefaultText string
}

// Param types.
const (
	ParamInteger  = "integer"
	ParamNumber   = "number"
	ParamDuration = "duration"
	ParamLease    = "lease" // a duration from 15s to 60s in whole seconds, or "infinite"
	ParamEnum     = "enum"
)

func fractionParam(doc string, def float64, positive bool) ParamSpec {
	return ParamSpec{Doc: doc, Type: ParamNumber, Min: 0, Max: 1, ExclusiveMin: positive, Default: def}
}

func wholeParam(doc string, lo, hi int, def int) ParamSpec {
	return ParamSpec{Doc: doc, Type: ParamInteger, Min: float64(lo), Max: float64(hi), Default: def}
}

// paramSpecs are the params by name; ParamSpecs lists them in paramNames
// order.
var paramSpecs = map[string]ParamSpec{
	"payload_bytes": {Doc: "pad every written value (blob, entity, message) to at least this many bytes", Type: ParamInteger,
		Min: 0, Max: maxPayloadBytes, Default: 0},
	"lease_duration": {Doc: "the lease each acquire asks for", Type: ParamLease,
		MinDuration: minLease, MaxDuration: maxLease, WholeSeconds: true, Default: defaultLease},
	"hold": {Doc: "how long a holder keeps the lease before releasing it", Type: ParamDuration,
		MinDuration: 0, NoMax: true, Default: time.Duration(0)},
	"acquire_retry": {Doc: "how an actor that lost the race (409 LeaseAlreadyPresent) tries again: backoff (wait a random share of the lease duration, from 1/64 to 1/32 of it after the first loss, twice as long after each further loss in a row, at most 1/8 to 1/4 of it; an infinite lease counts as 60s) or hammer (at once, a stress test)",
		Type: ParamEnum, Enum: AcquireRetries, Default: AcquireBackoff},
	"read_fraction":     fractionParam("share of iterations that read instead of write", 0.5, true),
	"conditional_reads": fractionParam("share of reads sent with If-None-Match on the cached ETag (304 while unchanged)", 0, false),
	"misbehave":         fractionParam("share of lease holders and losers that break the lease protocol on purpose", 0, false),
	"blocks":            wholeParam("blocks staged in parallel per commit", 1, maxBlocks, 4),
	"date_conditions":   fractionParam("share of writes sent with If-Unmodified-Since or If-Modified-Since instead of If-Match", 0, false),
	"merge_fraction":    fractionParam("share of writes that are Merge Entity rather than Update Entity", 0.5, false),
	"force_fraction":    fractionParam("share of writers that force (If-Match: *, Insert Or Replace/Merge)", 0.5, true),
	"props":             wholeParam("properties per entity; a merge writes a random subset", 1, maxProps, 6),
	"replace_fraction":  fractionParam("share of writes that replace (Update Entity) rather than merge", 0.3, true),
	"batch_size":        wholeParam("operations in one entity group transaction", 1, maxBatch, 10),
	"rows":              {Doc: "rows per partition", Type: ParamInteger, Min: 1, Max: maxRows, Default: 100},
	"fail_fraction":     fractionParam("share of batches built to fail (they insert a row that exists)", 0.1, false),
	"key_pattern": {Doc: "how partitions or queues are named: single (one key), uniform (the workload's keys), zipf (the same keys, Zipf-distributed with exponent zipf_s), append (time-ordered), prepend (reverse time order), hash-prefix (a 3-digit hash before the time)",
		Type: ParamEnum, Enum: KeyPatterns, Default: KeyUniform},
	"zipf_s": {Doc: "the Zipf exponent of key_pattern zipf: 1.1 is mildly skewed, 3 very", Type: ParamNumber,
		Min: 1, Max: 10, ExclusiveMin: true, Default: 1.1},
	"projection": fractionParam("share of queries sent with $select", 0.5, false),
	"producers": {Doc: "actors that put messages; the others consume", Type: ParamInteger, Min: 1, Max: maxActors,
		DefaultText: "half the actors, at least 1"},
	"messages_per_get": wholeParam("messages a consumer asks for in one Get Messages", 1, maxPerGet, 8),
	"visibility": {Doc: "the visibility timeout of every get", Type: ParamDuration,
		MinDuration: time.Second, MaxDuration: maxVisibility, WholeSeconds: true, Default: 2 * time.Second},
	"update_fraction":  fractionParam("share of messages got whose progress is saved with Update Message", 0.2, false),
	"crash_fraction":   fractionParam("share of messages got that the consumer never deletes (a crash)", 0.05, false),
	"release_fraction": fractionParam("share of messages got that are given back at once (visibility 0)", 0.05, false),
}

// ParamSpecs returns the spec of every param, in documentation order.
func ParamSpecs() []ParamSpec {
	out := make([]ParamSpec, 0, len(paramNames))
	for _, n := range paramNames {
		out = append(out, ParamSpecOf(n))
	}
	return out
}

// ParamSpecOf returns the spec of the param name (zero if there is none).
func ParamSpecOf(name string) ParamSpec {
	s, ok := paramSpecs[name]
	if !ok {
		return ParamSpec{}
	}
	s.Name = name
	return s
}

// MaxFor is the largest value the param takes in a workload of kind (only
// payload_bytes depends on the kind: a table entity holds 1 MiB, a queue
// message 64 KiB).
func (p ParamSpec) MaxFor(kind string) float64 {
	if p.Name == "payload_bytes" {
		return float64(payloadLimit(kind))
	}
	return p.Max
}

// RangeText says what values the param takes in a workload of kind, e.g.
// "1 to 100", "a fraction above 0 to 1", "15s to 60s in whole seconds, or
// infinite".
func (p ParamSpec) RangeText(kind string) string {
	switch p.Type {
	case ParamInteger:
		return fmt.Sprintf("a whole number, %s to %s", num(p.Min), num(p.MaxFor(kind)))
	case ParamNumber:
		lo := num(p.Min)
		if p.ExclusiveMin {
			lo = "above " + lo
		}
		if p.Min == 0 && p.Max == 1 {
			return "a fraction, " + lo + " to 1"
		}
		return fmt.Sprintf("a number, %s to %s", lo, num(p.Max))
	case ParamDuration:
		s := "a duration ≥ " + durText(p.MinDuration)
		if !p.NoMax {
			s = fmt.Sprintf("a duration, %s to %s", durText(p.MinDuration), durText(p.MaxDuration))
		}
		if p.WholeSeconds {
			s += " in whole seconds"
		}
		return s
	case ParamLease:
		return fmt.Sprintf("%s to %s in whole seconds, or infinite", durText(p.MinDuration), durText(p.MaxDuration))
	case ParamEnum:
		return "one of " + strings.Join(p.Enum, ", ")
	}
	return ""
}

// DefaultFor is the default in a workload of kind, as a scenario file would
// write it ("" when it is computed from other fields: see DefaultText).
func (p ParamSpec) DefaultFor(kind string) string {
	if p.Name == "rows" && kind == "table.batch" {
		return ""
	}
	if p.Name == "rows" {
		return p.DefaultString()
	}
	if p.DefaultText != "" {
		return ""
	}
	return p.DefaultString()
}

// DefaultTextFor describes the default in a workload of kind.
func (p ParamSpec) DefaultTextFor(kind string) string {
	if p.Name == "rows" && kind == "table.batch" {
		return "20, or batch_size if larger"
	}
	if d := p.DefaultFor(kind); d != "" {
		return d
	}
	return p.DefaultText
}

// DefaultString is the default as a scenario file would write it.
func (p ParamSpec) DefaultString() string {
	if p.DefaultText != "" && p.Default == nil {
		return p.DefaultText
	}
	switch v := p.Default.(type) {
	case time.Duration:
		return durText(v)
	case float64:
		return strconv.FormatFloat(v, 'g', -1, 64)
	case int:
		return strconv.Itoa(v)
	case string:
		return v
	}
	return ""
}

// num prints a bound: 4194304, 0.5, 1.
func num(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// durText prints a duration as a scenario file would: 15s, 60s, 168h.
func durText(d time.Duration) string {
	switch {
	case d == 0:
		return "0s"
	case d%time.Hour == 0 && d >= 2*time.Hour:
		return strconv.FormatInt(int64(d/time.Hour), 10) + "h"
	case d%time.Second == 0:
		return strconv.FormatInt(int64(d/time.Second), 10) + "s"
	}
	return d.String()
}
