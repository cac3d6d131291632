package scenarios

import (
	"bytes"
	"encoding/json"
	"strconv"
	"time"
)

//go:generate go run ../cmd/stormcheck schema --out examples/scenario.schema.json

// SchemaFile is the name of the JSON Schema of scenario files, kept in the
// repository in examples/ beside the scenarios that name it on their
// first line:
//
//	# yaml-language-server: $schema=./scenario.schema.json
const SchemaFile = "scenario.schema.json"

// SchemaLine is the first line of every shipped scenario: it points YAML
// editors (VS Code's YAML extension, anything using yaml-language-server)
// at the schema beside it.
const SchemaLine = "# yaml-language-server: $schema=./" + SchemaFile

// durationPattern is what the loader's durations look like (Go durations
// with a unit: 500ms, 30s, 1m30s, 2h).
const durationPattern = `^([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$`

// schemaField is one field of a mapping in a scenario file: its help text
// and its JSON Schema (type and bounds).
type schemaField struct {
	doc    string
	schema obj
}

type obj = map[string]any

func duration(min string) obj {
	o := obj{"type": "string", "pattern": durationPattern}
	if min != "" {
		o["description"] = "a duration ≥ " + min
	}
	return o
}

func str() obj                    { return obj{"type": "string"} }
func integer(lo, hi float64) obj  { return obj{"type": "integer", "minimum": lo, "maximum": hi} }
func enumOf(values ...string) obj { return obj{"enum": values} }
func listOf(item obj) obj         { return obj{"type": "array", "items": item} }
func positive(hi float64) obj     { return obj{"type": "number", "exclusiveMinimum": 0, "maximum": hi} }
func pattern(re string) obj       { return obj{"type": "string", "pattern": re} }
func section(name string) obj     { return obj{"$ref": "#/definitions/" + name} }
func positiveNumber() obj         { return obj{"type": "number", "exclusiveMinimum": 0} }
func boolean() obj                { return obj{"type": "boolean"} }

// schemaSections are the mappings of a scenario file with the schema of
// each field. Their field names must be exactly the loader's field tables
// (topFields, workloadFields, ...): TestSchemaFieldsAreTheLoaders fails
// when they differ.
func schemaSections() map[string]map[string]schemaField {
	return map[string]map[string]schemaField{
		"scenario": {
			"name":               {"names the results folder and the reports (" + scenarioNameRule + ")", pattern(scenarioName.String())},
			"description":        {"free text shown in the report", str()},
			"seed":               {"the seed of every random choice; the same seed makes the same choices (default 1)", obj{"type": "integer"}},
			"target":             {"the service to run against (default: a managed Azurite)", section("target")},
			"duration":           {"each workload's load phase unless it sets its own (default " + durText(DefaultDuration) + ")", duration("")},
			"timeout":            {"each request's timeout (default " + durText(defaultTimeout) + ")", duration("")},
			"retry":              {"retries of throttled and unknown attempts", section("retry")},
			"workloads":          {"the workloads, run side by side", obj{"type": "array", "minItems": 1, "items": section("workload")}},
			"checks":             {"the checks run over the history (default: every check that applies to the workloads' kinds)", listOf(enumOf(checkNames()...))},
			"capacity":           {"the capacity targets the reports compare against", section("capacity")},
			"emulation":          {"throttling and latency emulated in front of a managed Azurite", section("emulation")},
			"thresholds":         {`pass/fail criteria, e.g. "p99(blob.put) < 50ms", or {threshold: ..., abort_on_fail: true} to stop the run when one fails`, listOf(obj{"anyOf": []obj{str(), section("threshold")}})},
			"compare":            {"settings for stormcheck compare", section("compare")},
			"unreachable_after":  {"stop the run once the target has answered nothing for this long (default " + durText(DefaultUnreachableAfter) + ")", duration("1s")},
			"faults":             {"faults injected in front of a managed Azurite", listOf(section("fault"))},
			"clock_offset_bound": {"the bound NTP gives the clocks of the machines running a sharded run's shards; merging widens each shard's real-time intervals by it (default " + durText(DefaultClockOffsetBound) + ", at most 1m)", duration("0s")},
		},
		"target": {
			"kind":                  {"how to reach the service", enumOf(targetKinds...)},
			"connection_string_env": {"the environment variable holding the connection string (connection-string)", pattern(envName.String())},
			"account":               {"the storage account's name (account-key, entra-id)", pattern(accountName.String())},
			"key_env":               {"the environment variable holding the account key (account-key)", pattern(envName.String())},
			"blob_url":              {"the blob endpoint (default https://ACCOUNT.blob.core.windows.net)", str()},
			"queue_url":             {"the queue endpoint", str()},
			"table_url":             {"the table endpoint", str()},
			"azurite_version":       {"the managed Azurite's version (default " + DefaultAzuriteVersion + ")", pattern(azuriteVersion.String())},
			"signing":               {"samba: " + SMBRequired + " makes the managed Samba require signed SMB (server signing = mandatory) and the sessions sign every request (default " + SMBDefault + ")", enumOf(smbSecurity...)},
			"encryption":            {"samba: " + SMBRequired + " makes the managed Samba require SMB 3 encryption (smb encrypt = required) and the sessions encrypt every request (default " + SMBDefault + ")", enumOf(smbSecurity...)},
		},
		"retry": {
			"max_attempts": {"attempts per operation, the first included", integer(1, 20)},
			"base":         {"the first back-off (full jitter, doubling)", duration("")},
			"max":          {"the longest back-off", duration("")},
			"on":           {"the outcomes retried", listOf(enumOf(retryOutcomes...))},
		},
		"workload": {
			"name":       {"unique in the scenario; lowercase letters, digits and -", pattern(workloadName.String())},
			"kind":       {"what the actors do ('stormcheck kinds' lists them)", enumOf(KindNames()...)},
			"executor":   {"closed: each actor waits for its answer; open: arrivals at a rate", enumOf(executors...)},
			"actors":     {"actors (closed), or the most arrivals served at once (open)", integer(1, maxActors)},
			"rate":       {"arrivals per second (open only)", positive(maxRate)},
			"keys":       {"distinct blobs, entities, partitions or queues the actors share", integer(1, maxKeys)},
			"shard_keys": {"how a sharded run splits the keys: divided (default: each shard owns a disjoint part) or shared (every shard races on every key)", enumOf(shardKeyModes...)},
			"duration":   {"this workload's load phase", duration("")},
			"iterations": {"stop after this many operations", obj{"type": "integer", "minimum": 1}},
			"stages":     {"ramp the actors (closed) or the rate (open) linearly to each stage's target over its duration", listOf(section("stage"))},
			"params":     {"the kind's own settings ('stormcheck kinds KIND' lists them)", section("params")},
		},
		"threshold": {
			"threshold":        {`the criterion, e.g. "p95(blob.put) < 50ms"`, str()},
			"abort_on_fail":    {"stop the load as soon as the criterion fails on the live figures (checked every second); the run exits with the threshold-failure code", boolean()},
			"delay_abort_eval": {"how long the load runs before abort_on_fail is first checked (default 0s)", duration("")},
		},
		"stage": {
			"duration": {"how long this stage ramps", duration("")},
			"target":   {"actors (closed) or arrivals per second (open) at the stage's end", obj{"type": "number", "minimum": 0}},
		},
		"capacity": {
			"profile": {"the built-in targets", enumOf(ProfileChecklist)},
			"scale":   {"scales the profile down for a small machine", positive(1)},
			"targets": {"per-unit targets overriding the profile", section("capacityTargets")},
		},
		"capacityTargets": {
			"blob":           {"requests/s per blob", positiveNumber()},
			"partition":      {"entities/s per table partition", positiveNumber()},
			"queue":          {"messages/s per queue", positiveNumber()},
			"account":        {"requests/s per account", positiveNumber()},
			"blob_bandwidth": {"MiB/s per blob", positiveNumber()},
			"ingress":        {"Gbps into the account", positiveNumber()},
			"egress":         {"Gbps out of the account", positiveNumber()},
		},
		"emulation": {
			"throttle": {"answer 503 ServerBusy over the capacity targets", boolean()},
			"burst":    {"the token bucket's depth in seconds of rate", duration("")},
			"warmup":   {"a cold unit sustains 20 % of its target, all of it after this much load", duration("")},
			"delay":    {"latency added to every request", duration("")},
		},
		"compare": {
			"tolerance": {"relative change compare never flags (0.1 is 10 %)", obj{"type": "number", "minimum": 0}},
		},
		"fault": {
			"name":     {"names the fault in reports", pattern(faultName.String())},
			"kind":     {"what the fault does", enumOf(FaultKindNames()...)},
			"at":       {"when it starts, from the load's start", duration("")},
			"for":      {"how long each window lasts", duration("")},
			"every":    {"repeat the window this often", duration("")},
			"services": {"the services it affects", listOf(enumOf(FaultServices...))},
			"ops":      {"the operations it affects", listOf(enumOf(FaultOps...))},
			"keys":     {"the keys it affects (glob patterns)", listOf(str())},
			"fraction": {"the share of matching requests it affects", obj{"type": "number", "minimum": 0, "maximum": 1}},
			"latency":  {"net.latency: the added latency", duration("")},
			"jitter":   {"net.latency: the spread around it", duration("")},
			"rate":     {"net.bandwidth: KB/s", positiveNumber()},
			"bytes":    {"net.cut-response: bytes before the cut", obj{"type": "integer", "minimum": 0}},
			"hold":     {"http.reorder: how long a request is held back", duration("")},
			"gap":      {"http.duplicate: the gap between the two deliveries", duration("")},
		},
	}
}

// schemaFieldTables are the loader's field tables by section: the schema
// must name exactly these fields.
func schemaFieldTables() map[string][]string {
	return map[string][]string{
		"scenario": topFields, "target": targetFields, "retry": retryFields, "workload": workloadFields,
		"stage": stageFields, "capacity": capacityFields, "capacityTargets": targetUnits, "emulation": emulationFields,
		"compare": compareFields, "fault": faultFields, "threshold": thresholdFields,
	}
}

// required are the fields each section must have.
var schemaRequired = map[string][]string{"scenario": {"name", "workloads"}, "workload": {"name", "kind"}, "stage": {"duration", "target"}, "fault": {"kind"}, "threshold": {"threshold"}}

// paramSchema is the JSON Schema of one param in a workload of kind.
func paramSchema(p ParamSpec, kind string) obj {
	var o obj
	switch p.Type {
	case ParamInteger:
		o = integer(p.Min, p.MaxFor(kind))
	case ParamNumber:
		o = obj{"type": "number", "maximum": p.Max}
		if p.ExclusiveMin {
			o["exclusiveMinimum"] = p.Min
		} else {
			o["minimum"] = p.Min
		}
	case ParamDuration:
		o = duration("")
	case ParamLease:
		// A range of durations is no pattern: every allowed value, as
		// people write them (15s ... 60s, 1m, 1m0s) and infinite.
		var vs []string
		for d := p.MinDuration; d <= p.MaxDuration; d += time.Second {
			vs = append(vs, durText(d))
			if d.String() != durText(d) {
				vs = append(vs, d.String())
			}
			if d%time.Minute == 0 {
				vs = append(vs, strconv.Itoa(int(d/time.Minute))+"m")
			}
		}
		o = enumOf(append(vs, "infinite")...)
	case ParamEnum:
		o = enumOf(p.Enum...)
	}
	desc := p.Doc + "; " + p.RangeText(kind)
	if d := p.DefaultTextFor(kind); d != "" {
		desc += "; default " + d
	}
	o["description"] = desc
	return o
}

// Schema returns the JSON Schema (draft-07) of scenario files, made from
// the loader's own tables: its field lists, the kinds with their params
// (types, bounds, defaults), the checks, executors, target kinds and fault
// kinds. The loader stays the judge (cross-field rules, secrets, thresholds
// syntax); the schema lets an editor complete and check as you type.
func Schema() ([]byte, error) {
	defs := obj{}
	for name, fields := range schemaSections() {
		props := obj{}
		for f, spec := range fields {
			s := obj{}
			for k, v := range spec.schema {
				s[k] = v
			}
			if _, ok := s["$ref"]; ok {
				s = obj{"allOf": []obj{spec.schema}} // a $ref ignores its siblings in draft-07
			}
			s["description"] = spec.doc
			props[f] = s
		}
		d := obj{"type": "object", "properties": props, "additionalProperties": false}
		if r := schemaRequired[name]; r != nil {
			d["required"] = r
		}
		defs[name] = d
	}
	// Params: every param known (for completion before the kind is set),
	// then each kind allowing only its own, with its own bounds.
	all := obj{}
	for _, p := range ParamSpecs() {
		all[p.Name] = paramSchema(p, "")
	}
	defs["params"] = obj{"type": "object", "properties": all}
	var perKind []obj
	for _, kind := range KindNames() {
		props := obj{}
		for _, n := range Kinds[kind].Params {
			props[n] = paramSchema(ParamSpecOf(n), kind)
		}
		perKind = append(perKind, obj{
			"if":   obj{"properties": obj{"kind": obj{"const": kind}}, "required": []string{"kind"}},
			"then": obj{"properties": obj{"params": obj{"type": "object", "properties": props, "additionalProperties": false}}},
		})
	}
	w := defs["workload"].(obj)
	w["allOf"] = perKind
	root := obj{
		"$schema":     "http://json-schema.org/draft-07/schema#",
		"$id":         SchemaURL,
		"title":       "stormcheck scenario",
		"description": "A stormcheck scenario file. Generated by 'stormcheck schema' from the loader's tables; the loader (stormcheck validate) has the last word.",
		"definitions": defs,
		"allOf":       []obj{section("scenario")},
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(root); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
