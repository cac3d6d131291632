package scenarios

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"
)

// invalidCases holds, for every file in testdata/invalid, the one error it
// must produce (a YAML syntax error too has its column).
var invalidCases = map[string]struct {
	line, col int
	field     string
	msg       string
}{
	"account-missing.yaml":              {4, 3, "target.account", "required for target kind entra-id"},
	"shard-keys-unknown.yaml":           {6, 17, "workloads[0].shard_keys", `must be divided (each shard of a sharded run owns a disjoint part of the keys) or shared (every shard races on every key), got "split"`},
	"clock-offset-bound-too-large.yaml": {3, 21, "clock_offset_bound", "must be a duration ≥ 0 and ≤ 1m0s (the clocks of the shards' machines, synchronised by NTP, differ by less), got 2m"},
	"clock-offset-bound-no-unit.yaml":   {3, 21, "clock_offset_bound", "durations need a unit, e.g. 30s, got 100"},
	"actors-list.yaml":                  {6, 13, "workloads[0].actors", "must be a whole number ≥ 1 and ≤ 10000, got a list"},
	"actors-negative.yaml":              {6, 13, "workloads[0].actors", "must be a whole number ≥ 1 and ≤ 10000, got -3"},
	"actors-overflow.yaml":              {6, 13, "workloads[0].actors", "got 99999999999999999999"},
	"actors-wrong-type.yaml":            {6, 13, "workloads[0].actors", `must be a whole number ≥ 1 and ≤ 10000, got "many"`},
	"check-duplicate.yaml":              {8, 5, "checks[1]", `duplicate check "no-lost-updates" (first at line 7)`},
	"check-no-workload.yaml":            {6, 27, "checks[1]", `"single-winner" applies to kind blob.create-once, and no workload here has that kind`},
	"check-unknown.yaml":                {6, 10, "checks[0]", `unknown check "no-lost-update" (did you mean "no-lost-updates"?); known checks: append-log (kinds blob.append-log); at-least-once (kinds queue.work); batch-atomicity`},
	"duplicate-key.yaml":                {7, 5, "workloads[0].actors", `duplicate key "actors" (first at line 6)`},
	"key-pattern-unknown.yaml":          {6, 27, "workloads[0].params.key_pattern", `got "apend" (did you mean "append"?)`},
	"visibility-fraction.yaml":          {8, 19, "workloads[0].params.visibility", "must be whole seconds (the service counts in seconds), got 1500ms"},
	"batch-size-too-large.yaml":         {7, 19, "workloads[0].params.batch_size", "must be a whole number ≥ 1 and ≤ 100, got 101"},
	"messages-per-get-too-many.yaml":    {7, 32, "workloads[0].params.messages_per_get", "must be a whole number ≥ 1 and ≤ 32, got 33"},
	"queue-payload-too-large.yaml":      {7, 22, "workloads[0].params.payload_bytes", "≤ 49152, got 65536"},

	"duplicate-workload-name.yaml":     {6, 11, "workloads[1].name", `duplicate workload name "counter" (first at line 4)`},
	"duration-and-stages.yaml":         {5, 5, "workloads[0].duration", "set duration or stages, not both"},
	"duration-bad-unit.yaml":           {2, 11, "duration", `must be a duration such as 30s, 2m or 500ms (units ns, us, ms, s, m, h), got "20 sec"`},
	"duration-no-unit.yaml":            {2, 11, "duration", "durations need a unit, e.g. 30s, got 20"},
	"empty.yaml":                       {1, 1, "", "empty scenario"},
	"env-holds-secret.yaml":            {5, 26, "target.connection_string_env", "must name an environment variable"},
	"executor-unknown.yaml":            {6, 15, "workloads[0].executor", `must be one of closed (`},
	"iterations-zero.yaml":             {5, 17, "workloads[0].iterations", "must be a whole number ≥ 1"},
	"kind-missing.yaml":                {4, 5, "workloads[0].kind", "required: a workload kind, e.g. blob.etag-counter; 'stormcheck kinds' lists all "},
	"kind-unknown.yaml":                {5, 11, "workloads[0].kind", `unknown kind "blob.etag-countr"; nearest: blob.etag-counter, table.etag-counter; 'stormcheck kinds' lists all `},
	"lease-10s.yaml":                   {7, 23, "workloads[0].params.lease_duration", "a lease lasts 15s to 60s, or infinite; got 10s"},
	"lease-90s.yaml":                   {7, 23, "workloads[0].params.lease_duration", "a lease lasts 15s to 60s, or infinite; got 90s"},
	"lease-bare-number.yaml":           {7, 23, "workloads[0].params.lease_duration", "a lease lasts 15s to 60s, or infinite; got 30, a number without a unit"},
	"name-missing.yaml":                {1, 1, "name", "required: the scenario's name"},
	"not-a-mapping.yaml":               {1, 1, "", "a scenario file is a YAML mapping of fields (name, description, seed, target, duration, timeout, retry, workloads, checks, capacity, emulation, thresholds, compare, unreachable_after, faults, clock_offset_bound), got a list"},
	"open-without-rate.yaml":           {4, 5, "workloads[0].rate", "required for executor: open"},
	"param-not-for-kind.yaml":          {7, 7, "workloads[0].params.hold", `kind blob.etag-counter has no param "hold"; it takes only payload_bytes`},
	"payload-too-big.yaml":             {7, 22, "workloads[0].params.payload_bytes", "must be a whole number ≥ 0 and ≤ 4194304, got 5000000"},
	"rate-nan.yaml":                    {7, 11, "workloads[0].rate", "must be a number > 0, got .nan"},
	"rate-negative.yaml":               {7, 11, "workloads[0].rate", "must be a number > 0, got -5"},
	"rate-too-high.yaml":               {7, 11, "workloads[0].rate", "must be at most 1e+06 arrivals per second (one machine's pacer; run shards for more), got 1e12"},
	"rate-on-closed.yaml":              {6, 5, "workloads[0].rate", "rate applies to executor: open (this workload's executor is closed, the default)"},
	"retry-max-attempts.yaml":          {4, 17, "retry.max_attempts", "must be a whole number ≥ 1 and ≤ 20, got 21"},
	"retry-max-below-base.yaml":        {5, 8, "retry.max", "must be a duration ≥ retry.base (2s), got 1s"},
	"retry-on-unknown.yaml":            {4, 19, "retry.on[1]", `must be one of throttled, unknown, error, got "timeout"`},
	"secret-account-key.yaml":          {6, 3, "target.account_key", "secrets never go in scenario files: put the account key in an environment variable and name the variable with target.key_env"},
	"secret-connection-string.yaml":    {5, 3, "target.connection_string", "secrets never go in scenario files: put the connection string in an environment variable and name the variable with target.connection_string_env"},
	"seed-fraction.yaml":               {2, 7, "seed", "must be a whole number from -9223372036854775808 to 9223372036854775807, got 1.5"},
	"stage-missing-duration.yaml":      {6, 9, "workloads[0].stages[0].duration", "required: how long the stage ramps"},
	"stage-target-fraction.yaml":       {7, 17, "workloads[0].stages[0].target", "must be a whole number of actors ≥ 0 and ≤ 10000 (executor closed ramps actors), got 2.5"},
	"target-field-wrong-kind.yaml":     {4, 3, "target.connection_string_env", "applies to target kind: connection-string (this target's kind is azurite, the default)"},
	"target-kind-unknown.yaml":         {4, 9, "target.kind", `must be one of azurite, connection-string, account-key, entra-id, samba, got "sas"`},
	"unknown-top-field.yaml":           {3, 1, "timout", `unknown field "timout" (did you mean "timeout"?); allowed fields: name, description, seed, target, duration, timeout, retry, workloads, checks`},
	"unknown-workload-field.yaml":      {6, 5, "workloads[0].actrs", `unknown field "actrs" (did you mean "actors"?); allowed fields: name, kind, executor, actors, rate, keys, duration, iterations, stages, params`},
	"url-with-sas.yaml":                {6, 13, "target.blob_url", "with no user, query or fragment: secrets (such as a SAS token) never go in scenario files"},
	"workload-field-at-top.yaml":       {3, 1, "actors", "it is a workload field; put it in an item of workloads"},
	"workload-name-invalid.yaml":       {4, 11, "workloads[0].name", `must be 1 to 40 lowercase letters, digits and single hyphens, starting and ending with a letter or digit (it becomes part of Azure container names), got "Counter_1"`},
	"workload-name-double-hyphen.yaml": {4, 11, "workloads[0].name", `single hyphens, starting and ending with a letter or digit`},
	"workloads-not-list.yaml":          {4, 3, "workloads", "must be a list of workloads (mappings with name, kind, ...), got a mapping"},
	"yaml-syntax.yaml":                 {6, 4, "", "YAML syntax: did not find expected '-' indicator"},
	"yaml-tab.yaml":                    {5, 1, "", "YAML syntax: found a tab character that violates indentation (this line holds a tab"},
	"yaml-two-documents.yaml":          {6, 1, "", "a second YAML document starts here"},
}

// secretMarker is in every secret written into testdata; no message may
// repeat it.
const secretMarker = "c2VjcmV0"

func TestInvalidFiles(t *testing.T) {
	files, err := filepath.Glob("testdata/invalid/*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, path := range files {
		name := filepath.Base(path)
		seen[name] = true
		t.Run(name, func(t *testing.T) {
			want, ok := invalidCases[name]
			if !ok {
				t.Fatalf("no expectation for %s in invalidCases", path)
			}
			sc, err := Load(path)
			if err == nil {
				t.Fatalf("Load succeeded: %+v", sc)
			}
			var list ErrorList
			if !errors.As(err, &list) {
				t.Fatalf("error %T is not an ErrorList: %v", err, err)
			}
			if len(list) != 1 {
				t.Fatalf("want exactly 1 error, got %d:\n%v", len(list), err)
			}
			e := list[0]
			if e.File != path || e.Line != want.line || e.Col != want.col || e.Field != want.field {
				t.Errorf("got %s:%d:%d field %q, want %s:%d:%d field %q\n%v",
					e.File, e.Line, e.Col, e.Field, path, want.line, want.col, want.field, e)
			}
			if !strings.Contains(e.Msg, want.msg) {
				t.Errorf("message %q\ndoes not contain %q", e.Msg, want.msg)
			}
			if strings.Contains(err.Error(), secretMarker) {
				t.Errorf("the message repeats a secret: %v", err)
			}
		})
	}
	for name := range invalidCases {
		if !seen[name] {
			t.Errorf("invalidCases has %s but testdata/invalid has no such file", name)
		}
	}
}

func TestCollectsAllErrorsInFileOrder(t *testing.T) {
	src := `name: many
seed: x
workloads:
  - name: a
    kind: nope
    actors: 0
  - kind: blob.etag-counter
    rate: 10
checks: [bogus]
retry:
  max_attempts: 0
`
	_, err := Parse("many.yaml", []byte(src))
	var list ErrorList
	if !errors.As(err, &list) {
		t.Fatalf("want an ErrorList, got %v", err)
	}
	var got []string
	for _, e := range list {
		got = append(got, e.Field)
	}
	want := []string{
		"seed",                // 2
		"workloads[0].kind",   // 5
		"workloads[0].actors", // 6
		"workloads[1].name",   // 7: required
		"workloads[1].rate",   // 8
		"checks[0]",           // 9
		"retry.max_attempts",  // 11
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("fields\n got %q\nwant %q\n%v", got, want, err)
	}
	lines := strings.Split(err.Error(), "\n")
	if len(lines) != len(want) || !strings.HasPrefix(lines[0], "many.yaml:2:7: seed: must be a whole number") {
		t.Errorf("Error() = %q", err.Error())
	}
}

func TestDefaults(t *testing.T) {
	src := `name: minimal
duration: 30s
workloads:
  - name: counter
    kind: blob.etag-counter
`
	got, err := Parse("min.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := &Scenario{
		File:             "min.yaml",
		Name:             "minimal",
		Seed:             1,
		Target:           Target{Kind: TargetAzurite, AzuriteVersion: DefaultAzuriteVersion},
		Duration:         30 * time.Second,
		Timeout:          10 * time.Second,
		Retry:            Retry{MaxAttempts: 4, Base: 200 * time.Millisecond, Max: 5 * time.Second, On: []string{"throttled", "unknown"}},
		UnreachableAfter: 30 * time.Second,
		ClockOffsetBound: 100 * time.Millisecond,
		Workloads: []Workload{{
			Name: "counter", Kind: "blob.etag-counter", Executor: ExecutorClosed,
			Actors: 1, Keys: 1, Line: 4, ShardKeys: ShardKeysDivided,
		}},
		Checks:   []string{"no-lost-updates", "version-chain"},
		Capacity: Capacity{Profile: ProfileChecklist, Blob: 500, Partition: 2000, Queue: 2000, Account: 20000, BlobBandwidth: 60, Ingress: 20, Egress: 30, Scale: 1},
		Compare:  Compare{Tolerance: 0.1},
	}
	if string(got.Source) != src {
		t.Errorf("Source = %q, want the file's text", got.Source)
	}
	got.Source = nil
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got\n%+v\nwant\n%+v", got, want)
	}
}

func TestDefaultsPerKindAndExecutor(t *testing.T) {
	src := `name: kinds
seed: 0
target:
  kind: account-key
  account: myaccount
  queue_url: http://127.0.0.1:10001/myaccount
retry:
  base: 8s
workloads:
  - name: open
    kind: blob.create-once
    executor: open
    rate: 12.5
    iterations: 100
  - name: mutex
    kind: blob.lease-mutex
    iterations: 10
    params: {hold: 1s}
  - name: forever
    kind: blob.lease-mutex
    iterations: 10
    params: {lease_duration: infinite, payload_bytes: 4194304}
`
	s, err := Parse("kinds.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	wantTarget := Target{
		Kind: TargetAccountKey, Account: "myaccount", KeyEnv: "AZURE_STORAGE_KEY",
		BlobURL:  "https://myaccount.blob.core.windows.net",
		QueueURL: "http://127.0.0.1:10001/myaccount",
		TableURL: "https://myaccount.table.core.windows.net",
	}
	if s.Target != wantTarget {
		t.Errorf("target %+v, want %+v", s.Target, wantTarget)
	}
	if s.Seed != 0 {
		t.Errorf("explicit seed 0 became %d", s.Seed)
	}
	if s.Retry.Base != 8*time.Second || s.Retry.Max != 8*time.Second {
		t.Errorf("retry base %v max %v: max must default to at least base", s.Retry.Base, s.Retry.Max)
	}
	if w := s.Workloads[0]; w.Actors != 64 || w.Rate != 12.5 || w.Iterations != 100 || w.Params != (Params{}) {
		t.Errorf("open workload %+v", w)
	}
	if p := s.Workloads[1].Params; p != (Params{LeaseDuration: 15 * time.Second, Hold: time.Second, AcquireRetry: AcquireBackoff}) {
		t.Errorf("lease-mutex params %+v", p)
	}
	if p := s.Workloads[2].Params; p != (Params{LeaseDuration: Infinite, PayloadBytes: 4194304, AcquireRetry: AcquireBackoff}) {
		t.Errorf("infinite lease params %+v", p)
	}
	// Default checks: every default check of the kinds present (the
	// optional linearizable is not among them).
	if want := []string{"lease-exclusion", "lease-protocol", "no-lost-updates", "single-winner"}; !reflect.DeepEqual(s.Checks, want) {
		t.Errorf("default checks %q, want %q", s.Checks, want)
	}
}

func TestTargetDefaults(t *testing.T) {
	for _, tc := range []struct {
		target string
		want   Target
	}{
		{"{kind: connection-string}", Target{Kind: TargetConnectionString, ConnectionStringEnv: "AZURE_STORAGE_CONNECTION_STRING"}},
		{"{kind: connection-string, connection_string_env: MY_CS}", Target{Kind: TargetConnectionString, ConnectionStringEnv: "MY_CS"}},
		{"{kind: entra-id, account: acct123}", Target{Kind: TargetEntraID, Account: "acct123",
			BlobURL: "https://acct123.blob.core.windows.net", QueueURL: "https://acct123.queue.core.windows.net", TableURL: "https://acct123.table.core.windows.net"}},
		{"{azurite_version: 3.30.0}", Target{Kind: TargetAzurite, AzuriteVersion: "3.30.0"}},
		{"{kind: samba, signing: required, encryption: required}", Target{Kind: TargetSamba, Signing: SMBRequired, Encryption: SMBRequired}},
		{"{kind: samba, encryption: default}", Target{Kind: TargetSamba, Encryption: SMBDefault}},
	} {
		src := "name: t\nduration: 1s\ntarget: " + tc.target + "\nworkloads: [{name: a, kind: blob.etag-counter}]\n"
		s, err := Parse("", []byte(src))
		if err != nil {
			t.Errorf("%s: %v", tc.target, err)
			continue
		}
		if s.Target != tc.want {
			t.Errorf("%s: got %+v, want %+v", tc.target, s.Target, tc.want)
		}
	}
}

func TestExplicitValuesKept(t *testing.T) {
	src := `name: explicit
timeout: 2s
retry: {max_attempts: 1, base: 50ms, max: 1s, on: [error]}
checks: []
workloads:
  - name: ramp
    kind: blob.etag-counter
    actors: 2
    keys: 100000
    stages:
      - {duration: 5s, target: 10}
      - {duration: 1m, target: 0}
`
	s, err := Parse("x.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if s.Timeout != 2*time.Second || s.Duration != 0 {
		t.Errorf("timeout %v duration %v", s.Timeout, s.Duration)
	}
	if want := (Retry{MaxAttempts: 1, Base: 50 * time.Millisecond, Max: time.Second, On: []string{"error"}}); !reflect.DeepEqual(s.Retry, want) {
		t.Errorf("retry %+v", s.Retry)
	}
	if s.Checks == nil || len(s.Checks) != 0 {
		t.Errorf("explicit empty checks became %q", s.Checks)
	}
	w := s.Workloads[0]
	if want := []Stage{{5 * time.Second, 10}, {time.Minute, 0}}; !reflect.DeepEqual(w.Stages, want) || w.Actors != 2 || w.Keys != 100000 {
		t.Errorf("workload %+v", w)
	}
}

// TestShardFields: shard_keys and clock_offset_bound are kept as written;
// a stated bound of 0 stays 0 (not the default).
func TestShardFields(t *testing.T) {
	src := `name: sharded
duration: 5s
clock_offset_bound: 0s
workloads:
  - name: race
    kind: blob.etag-counter
    shard_keys: shared
  - name: own
    kind: blob.etag-counter
    shard_keys: divided
  - name: plain
    kind: blob.etag-counter
`
	s, err := Parse("x.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if s.ClockOffsetBound != 0 {
		t.Errorf("clock_offset_bound 0s became %v", s.ClockOffsetBound)
	}
	for i, want := range []string{ShardKeysShared, ShardKeysDivided, ShardKeysDivided} {
		if got := s.Workloads[i].ShardKeys; got != want {
			t.Errorf("workload %d: shard_keys %q, want %q", i, got, want)
		}
	}
	s, err = Parse("y.yaml", []byte("name: b\nduration: 5s\nclock_offset_bound: 250ms\nworkloads: [{name: w, kind: blob.etag-counter}]\n"))
	if err != nil {
		t.Fatal(err)
	}
	if s.ClockOffsetBound != 250*time.Millisecond {
		t.Errorf("clock_offset_bound 250ms became %v", s.ClockOffsetBound)
	}
}

// TestExamples loads every scenario shipped in examples/.
func TestExamples(t *testing.T) {
	files, err := filepath.Glob("examples/*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 3 {
		t.Fatalf("found only %q", files)
	}
	for _, f := range files {
		if _, err := Load(f); err != nil {
			t.Errorf("%v", err)
		}
	}
}

func TestQuickstart(t *testing.T) {
	s, err := Load("examples/quickstart.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if s.Name != "quickstart" || s.Duration != 20*time.Second || len(s.Workloads) != 2 {
		t.Fatalf("%+v", s)
	}
	c, w := s.Workloads[0], s.Workloads[1]
	if c.Name != "counter" || c.Kind != "blob.etag-counter" || c.Executor != ExecutorClosed || c.Actors != 32 || c.Keys != 1 || c.Duration != 20*time.Second {
		t.Errorf("counter %+v", c)
	}
	if w.Name != "create" || w.Kind != "blob.create-once" || w.Actors != 8 || w.Duration != 20*time.Second {
		t.Errorf("create %+v", w)
	}
	if want := []string{"no-lost-updates", "single-winner"}; !reflect.DeepEqual(s.Checks, want) {
		t.Errorf("checks %q", s.Checks)
	}
}

func TestOpenLoopAndLeaseExamples(t *testing.T) {
	s, err := Load("examples/open-loop.yaml")
	if err != nil {
		t.Fatal(err)
	}
	w := s.Workloads[0]
	want := []Stage{{10 * time.Second, 400}, {10 * time.Second, 400}}
	if w.Executor != ExecutorOpen || w.Rate != 50 || w.Actors != 64 || w.Keys != 4 || !reflect.DeepEqual(w.Stages, want) {
		t.Errorf("open-loop %+v", w)
	}
	s, err = Load("examples/lease-mutex.yaml")
	if err != nil {
		t.Fatal(err)
	}
	w = s.Workloads[0]
	if w.Kind != "blob.lease-mutex" || w.Actors != 8 || w.Params.LeaseDuration != 15*time.Second || w.Params.Hold != 0 || w.Params.Misbehave != 0.02 || s.Duration != 40*time.Second {
		t.Errorf("lease-mutex %+v", w)
	}
}

func TestMergeKeysAndAliases(t *testing.T) {
	src := `name: merged
duration: 5s
workloads:
  - &base {name: one, kind: blob.etag-counter, actors: 3}
  - <<: *base
    name: two
`
	s, err := Parse("m.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if w := s.Workloads[1]; w.Name != "two" || w.Kind != "blob.etag-counter" || w.Actors != 3 {
		t.Errorf("merged workload %+v", w)
	}
}

func TestNumberForms(t *testing.T) {
	src := "name: n\nduration: 1s\nworkloads: [{name: a, kind: blob.etag-counter, actors: 1e3, keys: 0x10, iterations: 1_000}]\n"
	s, err := Parse("", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if w := s.Workloads[0]; w.Actors != 1000 || w.Keys != 16 || w.Iterations != 1000 {
		t.Errorf("%+v", w)
	}
}

func TestErrorFormat(t *testing.T) {
	for _, tc := range []struct {
		e    Error
		want string
	}{
		{Error{File: "f.yaml", Line: 12, Col: 14, Field: "workloads[0].actors", Msg: "bad"}, "f.yaml:12:14: workloads[0].actors: bad"},
		{Error{File: "f.yaml", Line: 3, Col: 0, Field: "", Msg: "YAML syntax: x"}, "f.yaml:3: YAML syntax: x"},
		{Error{File: "", Line: 1, Col: 1, Field: "name", Msg: "bad"}, "1:1: name: bad"},
		{Error{File: "f.yaml", Line: 0, Col: 0, Field: "", Msg: "bad"}, "f.yaml: bad"},
	} {
		if got := tc.e.Error(); got != tc.want {
			t.Errorf("got %q, want %q", got, tc.want)
		}
	}
	l := ErrorList{{File: "a", Line: 1, Col: 2, Msg: "x"}, {File: "a", Line: 3, Col: 4, Msg: "y"}}
	if got := l.Error(); got != "a:1:2: x\na:3:4: y" {
		t.Errorf("ErrorList = %q", got)
	}
	var e *Error
	if !errors.As(error(l), &e) || e != l[0] {
		t.Errorf("errors.As does not find the first *Error")
	}
}

func TestLoadMissingFile(t *testing.T) {
	_, err := Load("testdata/no-such-file.yaml")
	if !errors.Is(err, os.ErrNotExist) {
		t.Errorf("got %v, want a not-exist error", err)
	}
}

func TestKindNames(t *testing.T) {
	names := KindNames()
	if len(names) != len(Kinds) || !sort.StringsAreSorted(names) {
		t.Errorf("KindNames() = %q", names)
	}
}

// TestKindsParamsReadable keeps Kinds and the param decoders in step.
func TestKindsParamsReadable(t *testing.T) {
	for name, k := range Kinds {
		for _, p := range k.Params {
			if !contains(paramNames, p) {
				t.Errorf("kind %s lists param %q, which the loader cannot read", name, p)
			}
		}
	}
}

func TestSelfMergeIsAnError(t *testing.T) {
	src := "name: x\nduration: 1s\nworkloads:\n  - &w\n    name: a\n    kind: blob.etag-counter\n    <<: *w\n"
	_, err := Parse("t.yaml", []byte(src))
	if err == nil || !strings.Contains(err.Error(), "cannot take the mapping it is part of") {
		t.Errorf("got %v", err)
	}
}

func TestSyntaxErrorLines(t *testing.T) {
	for _, tc := range []struct {
		src       string
		line, col int
		msg       string
	}{
		{"name: x\nduration: 2s\nworkloads: a: b\n", 3, 13, "mapping values are not allowed"},
		{"name: x\nworkloads:\n  - name: a\n    kind: 'abc\n    actors: 2\n", 4, 11, "found unexpected end of stream"},
		{"name: x\nduration: *nope\n", 2, 11, "alias *nope names no anchor"},
		{"name: x\nchecks: [a, b\nduration: 2s\n", 2, 9, "did not find expected ',' or ']'"},
		{"name: x\nworkloads:\n  - name: a\n    kind: b\n  oops\n", 5, 3, "YAML syntax"},
		{"name: x\n\xff: 1\n", 2, 1, "not UTF-8"},
	} {
		_, err := Parse("s.yaml", []byte(tc.src))
		var list ErrorList
		if !errors.As(err, &list) || len(list) != 1 {
			t.Errorf("%q: want one error, got %v", tc.src, err)
			continue
		}
		if e := list[0]; e.Line != tc.line || e.Col != tc.col || !strings.Contains(e.Msg, tc.msg) {
			t.Errorf("%q: got %v, want line %d col %d containing %q", tc.src, e, tc.line, tc.col, tc.msg)
		}
	}
}

// TestUnknownKindIsOneShortLine: an unknown kind names the nearest kinds and
// points at `stormcheck kinds`, in one line a terminal shows whole (it used
// to list every kind with its summary: 1,500 characters).
func TestUnknownKindIsOneShortLine(t *testing.T) {
	for name, want := range map[string][]string{
		"blob.etag-countr": {"blob.etag-counter"},
		"etag-counter":     {"blob.etag-counter", "table.etag-counter"},
		"queue":            {"queue.hot", "queue.work"},
		"zzzzzzzzzzzz":     nil,
	} {
		msg := UnknownKind(name)
		if len(msg) > 160 || strings.Contains(msg, "\n") || !strings.Contains(msg, "'stormcheck kinds'") {
			t.Errorf("%s: %d characters: %q", name, len(msg), msg)
		}
		near := NearestKinds(name)
		for _, w := range want {
			if !slices.Contains(near, w) {
				t.Errorf("%s: nearest %v lack %s", name, near, w)
			}
		}
		if want == nil && len(near) != 0 {
			t.Errorf("%s: nearest %v, want none", name, near)
		}
	}
}

// TestDefaultDuration: a scenario that bounds no workload (the shortest
// one a newcomer writes) runs each for DefaultDuration, and says so.
func TestDefaultDuration(t *testing.T) {
	src := "name: bare\nworkloads:\n  - {name: counter, kind: blob.etag-counter, actors: 4}\n  - {name: few, kind: blob.lww, iterations: 10}\n"
	sc, err := Parse("bare.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if sc.Duration != DefaultDuration || len(sc.Notes) != 1 || sc.Notes[0] != "no duration: counter (no duration, stages or iterations of its own) runs for the default 30s; set duration: to choose" {
		t.Errorf("duration %v, notes %q", sc.Duration, sc.Notes)
	}
	sc, err = Parse("set.yaml", []byte("name: set\nduration: 5s\nworkloads:\n  - {name: counter, kind: blob.etag-counter}\n"))
	if err != nil || sc.Duration != 5*time.Second || len(sc.Notes) != 0 {
		t.Errorf("with a duration: %v %v %q", err, sc.Duration, sc.Notes)
	}
}
