package scenarios

import (
	"os"
	"reflect"
	"strings"
	"testing"
	"time"
)

func init() {
	for name, c := range map[string]struct {
		line, col int
		field     string
		msg       string
	}{
		"fault-kind-unknown.yaml":               {7, 11, "faults[0].kind", `got "http.drop-respons" (did you mean "http.drop-response"?)`},
		"fault-at-without-for.yaml":             {8, 5, "faults[0].for", "required with at or every"},
		"fault-for-not-shorter-than-every.yaml": {9, 10, "faults[0].for", "must be shorter than every (5s)"},
		"fault-fraction-too-big.yaml":           {8, 15, "faults[0].fraction", "must be above 0 and at most 1"},
		"fault-latency-missing.yaml":            {7, 5, "faults[0].latency", "required for kind net.latency"},
		"fault-ops-on-network.yaml":             {8, 5, "faults[0].ops", "does not apply to kind net.reset-before; it takes services, fraction"},
		"fault-target-too-long.yaml":            {9, 10, "faults[0].for", "must be at most 60s for kind target.crash"},
		"fault-blackhole-whole-run.yaml":        {7, 5, "faults[0].for", "kind net.blackhole on every connection for the whole run silences the target"},
		"fault-target-no-window.yaml":           {7, 11, "faults[0].for", "kind target.pause needs a window"},
		"fault-service-unknown.yaml":            {8, 22, "faults[0].services[1]", `must be one of blob, queue, table, file, got "files"`},
		"fault-param-not-for-kind.yaml":         {8, 5, "faults[0].latency", "does not apply to kind http.reorder; it takes hold"},
		"fault-after-end.yaml":                  {8, 9, "faults[0].at", "must be before the end of the run (duration 20s)"},
		"fault-duplicate-name.yaml":             {9, 5, "faults[1].name", `duplicate fault name "a" (first at line 7)`},
		"fault-op-unknown.yaml":                 {8, 11, "faults[0].ops[0]", `got "blob.write"`},
		"fault-key-bad-glob.yaml":               {8, 12, "faults[0].keys[0]", `must be a glob pattern`},
		"fault-unknown-field.yaml":              {8, 5, "faults[0].window", `unknown field "window"`},
		"fault-on-real-account.yaml":            {12, 3, "faults", "faults run in front of a managed Azurite or Samba only"},
		"fault-http-on-samba.yaml":              {9, 11, "faults[0].kind", "kind http.timeout does not apply to SMB: on target kind samba use the net.* and broken.smb-* faults"},
		"fault-smb-on-azurite.yaml":             {7, 11, "faults[0].kind", "kind broken.smb-lock-shared rewrites SMB messages: it needs target kind samba"},
		"fault-net-on-samba-without-file.yaml":  {10, 15, "faults[0].services", "on target kind samba the only service is file (its SMB connections); blob names none of it"},
		"fault-smb-on-signed-samba.yaml":        {8, 11, "faults[0].kind", "kind broken.smb-lock-shared rewrites SMB messages, which a target that requires signing or encryption refuses"},
		"target-samba-signing-value.yaml":       {3, 35, "target.encryption", `must be one of default, required, got "always"`},
		"target-signing-on-azurite.yaml":        {3, 25, "target.signing", "applies to target kind: samba (this target's kind is azurite)"},
		"fault-file-on-azurite.yaml":            {8, 15, "faults[0].services", "file is the SMB stream of a samba target; Azurite has no file service"},
	} {
		invalidCases[name] = c
	}
}

func TestFaultsDecoded(t *testing.T) {
	src := `name: f
duration: 60s
workloads:
  - name: counter
    kind: blob.etag-counter
faults:
  - kind: http.drop-response
    name: lost-acks
    at: 10s
    for: 5s
    services: [blob]
    ops: [blob.put, blob.commit]
    keys: ["k*"]
    fraction: 0.25
  - kind: net.latency
    every: 20s
    for: 5s
    latency: 100ms
    jitter: 20ms
  - kind: http.reorder
  - kind: target.crash
    at: 30s
    for: 3s
`
	s, err := Parse("f.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := []Fault{
		{Name: "lost-acks", Kind: "http.drop-response", At: 10 * time.Second, For: 5 * time.Second, Services: []string{"blob"},
			Ops: []string{"blob.put", "blob.commit"}, Keys: []string{"k*"}, Fraction: 0.25, Line: 7},
		{Name: "net.latency-2", Kind: "net.latency", Every: 20 * time.Second, For: 5 * time.Second, Latency: 100 * time.Millisecond,
			Jitter: 20 * time.Millisecond, Fraction: 1, Line: 15},
		{Name: "http.reorder-3", Kind: "http.reorder", Hold: 500 * time.Millisecond, Fraction: 1, Line: 20},
		{Name: "target.crash-4", Kind: "target.crash", At: 30 * time.Second, For: 3 * time.Second, Fraction: 1, Line: 21},
	}
	if !reflect.DeepEqual(s.Faults, want) {
		t.Fatalf("faults:\n got %+v\nwant %+v", s.Faults, want)
	}
	if len(s.Breaks()) != 0 {
		t.Fatalf("no broken promise here, got %v", s.Breaks())
	}
}

func TestFaultWindows(t *testing.T) {
	sec := func(n float64) time.Duration { return time.Duration(n * float64(time.Second)) }
	whole := Fault{}
	once := Fault{At: sec(10), For: sec(5)}
	every := Fault{At: sec(5), Every: sec(20), For: sec(5)}
	for _, c := range []struct {
		f    Fault
		at   float64
		want bool
	}{
		{whole, 0, true}, {whole, 1e4, true},
		{once, 9.9, false}, {once, 10, true}, {once, 14.9, true}, {once, 15, false},
		{every, 4, false}, {every, 5, true}, {every, 9.9, true}, {every, 10, false}, {every, 25, true}, {every, 31, false},
	} {
		if got := c.f.Active(sec(c.at)); got != c.want {
			t.Errorf("%+v at %vs: active %v, want %v", c.f, c.at, got, c.want)
		}
	}
	got := every.Windows(sec(50))
	want := [][2]time.Duration{{sec(5), sec(10)}, {sec(25), sec(30)}, {sec(45), sec(50)}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("windows %v, want %v", got, want)
	}
	if got := whole.Windows(sec(7)); !reflect.DeepEqual(got, [][2]time.Duration{{0, sec(7)}}) {
		t.Errorf("whole-run windows %v", got)
	}
}

func TestFaultKindsDocumented(t *testing.T) {
	names := FaultKindNames()
	if len(names) != len(FaultKinds) {
		t.Fatalf("FaultKindNames has %d kinds, FaultKinds %d", len(names), len(FaultKinds))
	}
	for _, n := range names {
		spec, ok := FaultKinds[n]
		if !ok {
			t.Fatalf("%s listed but not specified", n)
		}
		if strings.HasPrefix(n, "broken.") != (spec.Check != "") {
			t.Errorf("%s: a broken promise names the check that must fail, and only it", n)
		}
	}
}

// The README's faults example is a complete scenario that loads.
func TestREADMEFaultsExampleLoads(t *testing.T) {
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, sec, ok := strings.Cut(string(b), "## Faults (`faults:`)")
	if !ok {
		t.Fatal("README has no Faults section")
	}
	_, ex, ok := strings.Cut(sec, "```yaml\n")
	ex, _, ok2 := strings.Cut(ex, "```")
	if !ok || !ok2 {
		t.Fatal("the Faults section has no yaml example")
	}
	s, err := Parse("README.md", []byte(ex))
	if err != nil {
		t.Fatalf("the README's faults example does not load: %v", err)
	}
	if len(s.Faults) != 3 {
		t.Fatalf("%d faults, want 3", len(s.Faults))
	}
}
