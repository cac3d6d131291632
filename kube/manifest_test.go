package kube

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/api/validate/content"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/yaml"

	"github.com/stormcheck/stormcheck/scenarios"
)

// load reads a scenario of the repository.
func load(t *testing.T, name string) *scenarios.Scenario {
	t.Helper()
	sc, err := scenarios.Load("../scenarios/examples/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// parse loads a scenario from text.
func parse(t *testing.T, src string) *scenarios.Scenario {
	t.Helper()
	sc, err := scenarios.Parse("test.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

func baseOptions(sc *scenarios.Scenario) Options {
	return Options{
		Scenario: sc, Shards: 4, Image: "ghcr.io/you/stormcheck:v1", RunID: "5b0e3f6a",
		Secret: "stormcheck-conn", Upload: "stormcheck-results",
		Now: time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC),
	}
}

// decoded is the YAML stream decoded back, strictly, into the API types.
type decoded struct {
	header string
	cm     corev1.ConfigMap
	job    batchv1.Job
}

// decode splits the stream into its documents and decodes each strictly: an
// unknown or misspelt field, or a wrong type, fails.
func decode(t *testing.T, stream []byte) decoded {
	t.Helper()
	docs := strings.Split(string(stream), "\n---\n")
	if len(docs) != 3 {
		t.Fatalf("want a header and 2 documents, got %d parts:\n%s", len(docs), stream)
	}
	var d decoded
	d.header = docs[0]
	for _, line := range strings.Split(d.header, "\n") {
		if !strings.HasPrefix(line, "#") {
			t.Errorf("header line %q is not a comment", line)
		}
	}
	if err := yaml.UnmarshalStrict([]byte(docs[1]), &d.cm); err != nil {
		t.Fatalf("ConfigMap does not decode strictly: %v\n%s", err, docs[1])
	}
	if err := yaml.UnmarshalStrict([]byte(docs[2]), &d.job); err != nil {
		t.Fatalf("Job does not decode strictly: %v\n%s", err, docs[2])
	}
	return d
}

// build builds and round-trips o through YAML.
func build(t *testing.T, o Options) (*Manifests, decoded) {
	t.Helper()
	m, err := Build(o)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := m.WriteYAML(&b, "test header\n\nsecond line"); err != nil {
		t.Fatal(err)
	}
	return m, decode(t, b.Bytes())
}

// TestStrictDecoderRefusesUnknownFields shows that the decoding the tests
// rely on is strict indeed.
func TestStrictDecoderRefusesUnknownFields(t *testing.T) {
	var j batchv1.Job
	if err := yaml.UnmarshalStrict([]byte("apiVersion: batch/v1\nkind: Job\nspec:\n  completionz: 4\n"), &j); err == nil {
		t.Error("a misspelt field decoded")
	}
	if err := yaml.UnmarshalStrict([]byte("spec:\n  completions: four\n"), &j); err == nil {
		t.Error("a wrong type decoded")
	}
}

func TestIndexedJobFromSecret(t *testing.T) {
	sc := load(t, "quickstart.yaml")
	_, d := build(t, baseOptions(sc))
	if d.cm.APIVersion != "v1" || d.cm.Kind != "ConfigMap" || d.job.APIVersion != "batch/v1" || d.job.Kind != "Job" {
		t.Errorf("kinds: %s %s, %s %s", d.cm.APIVersion, d.cm.Kind, d.job.APIVersion, d.job.Kind)
	}
	name := "stormcheck-quickstart-5b0e3f6a"
	if d.job.Name != name || d.cm.Name != name {
		t.Errorf("names %q %q, want %q", d.job.Name, d.cm.Name, name)
	}
	spec := d.job.Spec
	if spec.CompletionMode == nil || *spec.CompletionMode != batchv1.IndexedCompletion {
		t.Errorf("completionMode %v, want Indexed", spec.CompletionMode)
	}
	if spec.Completions == nil || *spec.Completions != 4 || spec.Parallelism == nil || *spec.Parallelism != 4 {
		t.Errorf("completions %v parallelism %v, want 4 and 4", spec.Completions, spec.Parallelism)
	}
	// Never a second attempt of a shard.
	if spec.BackoffLimitPerIndex == nil || *spec.BackoffLimitPerIndex != 0 {
		t.Errorf("backoffLimitPerIndex %v, want 0", spec.BackoffLimitPerIndex)
	}
	if spec.BackoffLimit == nil || *spec.BackoffLimit != 4 {
		t.Errorf("backoffLimit %v, want 4 (one failure per shard never stops the others)", spec.BackoffLimit)
	}
	pod := spec.Template.Spec
	if pod.RestartPolicy != corev1.RestartPolicyNever {
		t.Errorf("restartPolicy %q", pod.RestartPolicy)
	}
	rules := spec.PodFailurePolicy.Rules
	if len(rules) != 2 || rules[0].Action != batchv1.PodFailurePolicyActionFailJob || rules[0].OnExitCodes == nil ||
		!slices.Equal(rules[0].OnExitCodes.Values, []int32{2}) || *rules[0].OnExitCodes.ContainerName != ContainerName ||
		rules[1].Action != batchv1.PodFailurePolicyActionFailIndex || rules[1].OnPodConditions[0].Type != corev1.DisruptionTarget {
		t.Errorf("podFailurePolicy %+v", spec.PodFailurePolicy)
	}
	// 20 s of load + 30 m.
	if spec.ActiveDeadlineSeconds == nil || *spec.ActiveDeadlineSeconds != 1820 {
		t.Errorf("activeDeadlineSeconds %v, want 1820", spec.ActiveDeadlineSeconds)
	}

	if len(pod.Containers) != 1 {
		t.Fatalf("%d containers", len(pod.Containers))
	}
	c := pod.Containers[0]
	if c.Image != "ghcr.io/you/stormcheck:v1" || c.Name != ContainerName {
		t.Errorf("container %q image %q", c.Name, c.Image)
	}
	want := []string{"run", "/scenario/scenario.yaml", "--shards", "4", "--run-id", "5b0e3f6a", "--out", "/results",
		"--upload", "stormcheck-results", "--target", "connection-string", "--progress", "lines"}
	if !slices.Equal(c.Args, want) {
		t.Errorf("args\n got %q\nwant %q", c.Args, want)
	}
	if len(c.Command) != 0 {
		t.Errorf("command %q: the image's entrypoint runs", c.Command)
	}
	env := map[string]corev1.EnvVar{}
	for _, e := range c.Env {
		env[e.Name] = e
	}
	cs := env["AZURE_STORAGE_CONNECTION_STRING"]
	if cs.Value != "" || cs.ValueFrom == nil || cs.ValueFrom.SecretKeyRef == nil ||
		cs.ValueFrom.SecretKeyRef.Name != "stormcheck-conn" || cs.ValueFrom.SecretKeyRef.Key != "connection-string" {
		t.Errorf("connection string env %+v, want it from secret stormcheck-conn key connection-string", cs)
	}
	idx := env[IndexEnv]
	if idx.ValueFrom == nil || idx.ValueFrom.FieldRef == nil ||
		idx.ValueFrom.FieldRef.FieldPath != "metadata.annotations['batch.kubernetes.io/job-completion-index']" {
		t.Errorf("%s env %+v", IndexEnv, idx)
	}
	if env["GOMEMLIMIT"].Value != "117MiB" { // 90 % of 131 MiB
		t.Errorf("GOMEMLIMIT %q", env["GOMEMLIMIT"].Value)
	}
	for _, e := range c.Env {
		if e.Value != "" && e.Name != "GOMEMLIMIT" {
			t.Errorf("env %s has an inline value %q", e.Name, e.Value)
		}
	}

	// Resources from the rule: 8 + 2 actors on the busiest shard.
	if got := c.Resources.Requests.Cpu().String(); got != "250m" {
		t.Errorf("cpu request %s", got)
	}
	if got := c.Resources.Requests.Memory().String(); got != "131Mi" {
		t.Errorf("memory request %s", got)
	}
	if !c.Resources.Limits.Memory().Equal(*c.Resources.Requests.Memory()) || !c.Resources.Limits.Cpu().IsZero() {
		t.Errorf("limits %v: want memory = request, no CPU limit", c.Resources.Limits)
	}

	// Security: non-root, read-only root, writable /results and /tmp only.
	psc, csc := pod.SecurityContext, c.SecurityContext
	if !*psc.RunAsNonRoot || *psc.RunAsUser != NonRootUID || *psc.FSGroup != NonRootUID || psc.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault {
		t.Errorf("pod security context %+v", psc)
	}
	if !*csc.ReadOnlyRootFilesystem || *csc.AllowPrivilegeEscalation || !slices.Equal(csc.Capabilities.Drop, []corev1.Capability{"ALL"}) {
		t.Errorf("container security context %+v", csc)
	}
	if *pod.AutomountServiceAccountToken {
		t.Error("the service account token is mounted")
	}
	mounts := map[string]corev1.VolumeMount{}
	for _, m := range c.VolumeMounts {
		mounts[m.MountPath] = m
	}
	vols := map[string]corev1.Volume{}
	for _, v := range pod.Volumes {
		vols[v.Name] = v
	}
	if m := mounts[ScenarioDir]; !m.ReadOnly || vols[m.Name].ConfigMap == nil || vols[m.Name].ConfigMap.Name != name ||
		vols[m.Name].ConfigMap.Items[0].Key != ScenarioKey || vols[m.Name].ConfigMap.Items[0].Path != ScenarioKey {
		t.Errorf("scenario mount %+v volume %+v", m, vols[m.Name])
	}
	for _, dir := range []string{ResultsDir, TmpDir} {
		if m := mounts[dir]; m.ReadOnly || vols[m.Name].EmptyDir == nil {
			t.Errorf("%s: mount %+v volume %+v, want a writable emptyDir", dir, m, vols[m.Name])
		}
	}

	// Labels: the run id on everything, pods spread over nodes by it.
	for what, l := range map[string]map[string]string{"configmap": d.cm.Labels, "job": d.job.Labels, "pod": spec.Template.Labels} {
		if l[RunIDLabel] != "5b0e3f6a" || l["app.kubernetes.io/name"] != "stormcheck" || l[ScenarioLabel] != "quickstart" {
			t.Errorf("%s labels %v", what, l)
		}
	}
	if _, ok := spec.Template.Labels[WorkloadIdentityLabel]; ok {
		t.Error("workload identity label without --service-account")
	}
	tsc := pod.TopologySpreadConstraints
	if len(tsc) != 1 || tsc[0].TopologyKey != "kubernetes.io/hostname" || tsc[0].LabelSelector.MatchLabels[RunIDLabel] != "5b0e3f6a" {
		t.Errorf("topology spread %+v", tsc)
	}
	if !strings.Contains(d.header, "# test header\n#\n# second line") {
		t.Errorf("header %q", d.header)
	}
}

// TestScenarioByteForByte: the ConfigMap holds the scenario exactly, even
// text YAML would normally rewrite (trailing spaces, tabs in comments, a
// document marker, CRLF line ends, non-ASCII, a last line without newline).
func TestScenarioByteForByte(t *testing.T) {
	for name, src := range map[string]string{
		"quickstart": string(load(t, "quickstart.yaml").Source),
		"awkward": "---\r\n# spaces after this   \r\nname: awkward \t\r\n# tab\there, é, 雪, \"quotes\" 'single'\r\n" +
			"description: \"a: b # c\"\r\nworkloads:\r\n  - {name: w, kind: blob.lww, actors: 4, duration: 1s}  \r\n# no newline at the end",
	} {
		t.Run(name, func(t *testing.T) {
			sc := parse(t, src)
			m, d := build(t, baseOptions(sc))
			if got := d.cm.Data[ScenarioKey]; got != src {
				t.Errorf("ConfigMap data differs from the scenario:\n got %q\nwant %q", got, src)
			}
			if len(d.cm.BinaryData) != 0 || m.ConfigMap.Immutable == nil || !*d.cm.Immutable {
				t.Errorf("binaryData %v immutable %v", d.cm.BinaryData, d.cm.Immutable)
			}
		})
	}
}

func TestWorkloadIdentity(t *testing.T) {
	sc := parse(t, "name: entra\ntarget: {kind: entra-id, account: myaccount}\nworkloads:\n  - {name: w, kind: blob.lww, actors: 8, duration: 1m}\n")
	o := baseOptions(sc)
	o.Secret, o.ServiceAccount = "", "stormcheck-wi"
	_, d := build(t, o)
	pod := d.job.Spec.Template
	if pod.Labels[WorkloadIdentityLabel] != "true" || pod.Spec.ServiceAccountName != "stormcheck-wi" {
		t.Errorf("labels %v service account %q", pod.Labels, pod.Spec.ServiceAccountName)
	}
	c := pod.Spec.Containers[0]
	for _, e := range c.Env {
		if e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil {
			t.Errorf("env %s from a secret under workload identity", e.Name)
		}
	}
	if slices.Contains(c.Args, "--target") {
		t.Errorf("args %q override the scenario's entra-id target", c.Args)
	}
}

// TestSecretFeedsTheScenarioTarget: the Secret's value goes into the
// variable the scenario's target reads.
func TestSecretFeedsTheScenarioTarget(t *testing.T) {
	for _, tc := range []struct {
		target, key, wantEnv, wantKey string
	}{
		{"{kind: connection-string, connection_string_env: MY_CONN}", "", "MY_CONN", "connection-string"},
		{"{kind: connection-string}", "conn", "AZURE_STORAGE_CONNECTION_STRING", "conn"},
		{"{kind: account-key, account: myaccount}", "", "AZURE_STORAGE_KEY", "account-key"},
		{"{kind: account-key, account: myaccount, key_env: K}", "primary", "K", "primary"},
	} {
		sc := parse(t, "name: s\ntarget: "+tc.target+"\nworkloads:\n  - {name: w, kind: blob.lww, actors: 8, duration: 1m}\n")
		o := baseOptions(sc)
		o.SecretKey = tc.key
		_, d := build(t, o)
		c := d.job.Spec.Template.Spec.Containers[0]
		found := false
		for _, e := range c.Env {
			if e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil {
				found = true
				if e.Name != tc.wantEnv || e.ValueFrom.SecretKeyRef.Key != tc.wantKey || e.ValueFrom.SecretKeyRef.Name != "stormcheck-conn" {
					t.Errorf("%s: env %s from %+v, want %s from key %s", tc.target, e.Name, e.ValueFrom.SecretKeyRef, tc.wantEnv, tc.wantKey)
				}
			}
		}
		if !found || slices.Contains(c.Args, "--target") {
			t.Errorf("%s: secret env found %v, args %q", tc.target, found, c.Args)
		}
	}
}

func TestResultsVolumeAndStartAt(t *testing.T) {
	o := baseOptions(load(t, "quickstart.yaml"))
	o.Upload, o.ResultsVolume = "", "stormcheck-results-rwx"
	o.StartAt = o.Now.Add(10 * time.Minute)
	o.Namespace, o.Name, o.ImagePullSecret = "load", "qs4", "regcred"
	_, d := build(t, o)
	pod := d.job.Spec.Template.Spec
	c := pod.Containers[0]
	want := []string{"run", "/scenario/scenario.yaml", "--shards", "4", "--run-id", "5b0e3f6a",
		"--out", "/results/5b0e3f6a/shard-$(JOB_COMPLETION_INDEX)-of-4", "--target", "connection-string",
		"--start-at", "2026-11-24T10:10:00Z", "--progress", "lines"}
	if !slices.Equal(c.Args, want) {
		t.Errorf("args\n got %q\nwant %q", c.Args, want)
	}
	for _, v := range pod.Volumes {
		if v.Name == "results" && (v.PersistentVolumeClaim == nil || v.PersistentVolumeClaim.ClaimName != "stormcheck-results-rwx") {
			t.Errorf("results volume %+v", v)
		}
	}
	// 20 s of load + 30 m + the 10 m wait for the start.
	if got := *d.job.Spec.ActiveDeadlineSeconds; got != 2420 {
		t.Errorf("activeDeadlineSeconds %d, want 2420", got)
	}
	if d.job.Namespace != "load" || d.cm.Namespace != "load" || d.job.Name != "qs4" || pod.Volumes[0].ConfigMap.Name != "qs4" {
		t.Errorf("namespace %q %q names %q %q", d.job.Namespace, d.cm.Namespace, d.job.Name, pod.Volumes[0].ConfigMap.Name)
	}
	if len(pod.ImagePullSecrets) != 1 || pod.ImagePullSecrets[0].Name != "regcred" {
		t.Errorf("image pull secrets %v", pod.ImagePullSecrets)
	}
}

func TestResourceOverrides(t *testing.T) {
	o := baseOptions(load(t, "quickstart.yaml"))
	o.CPU, o.Memory, o.CPULimit, o.Deadline = "2", "1Gi", "3", -1
	_, d := build(t, o)
	r := d.job.Spec.Template.Spec.Containers[0].Resources
	if r.Requests.Cpu().String() != "2" || r.Requests.Memory().String() != "1Gi" || r.Limits.Cpu().String() != "3" || r.Limits.Memory().String() != "1Gi" {
		t.Errorf("resources %+v", r)
	}
	if d.job.Spec.ActiveDeadlineSeconds != nil {
		t.Errorf("deadline %d, want none", *d.job.Spec.ActiveDeadlineSeconds)
	}
}

// TestSizingRule checks the rule against figures worked out by hand.
func TestSizingRule(t *testing.T) {
	for _, tc := range []struct {
		name, src   string
		n           int
		calls       float64
		cpu, memory string
	}{
		// 32 and 8 closed actors over 4 shards: 8 + 2 actors, 1000 calls/s;
		// 100m + 100 ms → 200m, at least 250m; 128 MiB + 10 × 256 KiB.
		{"quickstart", "quickstart.yaml", 4, 1000, "250m", "131Mi"},
		// one shard: 40 actors, 4000 calls/s → 100m + 400m; 320 MiB (it runs the checks) + 10 MiB.
		{"quickstart-1", "quickstart.yaml", 1, 4000, "500m", "330Mi"},
		// open loop peaking at 400/s, 64 actors over 3 shards: shard 0 has
		// 22, so 400 × 22/64 = 137.5 calls/s → 113.75m → 250m.
		{"open-loop", "open-loop.yaml", 3, 137.5, "250m", "134Mi"},
		// 1000 closed actors over 2 shards with 64 KiB payloads: 500 actors,
		// 50,000 calls/s → 5100m; 128 MiB + 500 × (256 KiB + 3 × 64 KiB) = 128 + 218.75 → 347Mi.
		{"big", "name: big\nworkloads:\n  - {name: w, kind: blob.lww, actors: 1000, duration: 1m, params: {payload_bytes: 65536}}\n", 2, 50000, "5100m", "347Mi"},
		// an open loop at 90,000/s over 2 shards of 100 actors: 45,000 calls/s → 4600m.
		{"fast-open", "name: f\nworkloads:\n  - {name: w, kind: blob.lww, executor: open, rate: 90000, actors: 100, duration: 1m}\n", 2, 45000, "4600m", "141Mi"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var sc *scenarios.Scenario
			if strings.HasSuffix(tc.src, ".yaml") {
				sc = load(t, tc.src)
			} else {
				sc = parse(t, tc.src)
			}
			s := Size(sc, tc.n)
			if s.CallsPerSecond != tc.calls || s.CPU.String() != tc.cpu || s.Memory.String() != tc.memory {
				t.Errorf("calls %v cpu %s memory %s, want %v %s %s (%s)", s.CallsPerSecond, s.CPU.String(), s.Memory.String(), tc.calls, tc.cpu, tc.memory, s.Explain())
			}
		})
	}
}

func TestBadOptions(t *testing.T) {
	sc := load(t, "quickstart.yaml")
	entra := parse(t, "name: entra\ntarget: {kind: entra-id, account: myaccount}\nworkloads:\n  - {name: w, kind: blob.lww, actors: 8, duration: 1m}\n")
	for _, tc := range []struct {
		name string
		edit func(*Options)
		want string
	}{
		{"no shards", func(o *Options) { o.Shards = 0 }, "--shards 0: want 1 to 10000"},
		{"negative shards", func(o *Options) { o.Shards = -3 }, "--shards -3"},
		{"more shards than actors", func(o *Options) { o.Shards = 33 }, "largest workload has 32 actor(s), so shards 32 to 32 would have nothing to run: use --shards 32 at most"},
		{"no image", func(o *Options) { o.Image = "" }, "--image is required"},
		{"image with space", func(o *Options) { o.Image = "a b" }, "no spaces"},
		{"no credentials", func(o *Options) { o.Secret = "" }, "no credentials: name a Secret"},
		{"both credentials", func(o *Options) { o.ServiceAccount = "sa" }, "choose one way to sign in"},
		{"service account, not entra", func(o *Options) { o.Secret, o.ServiceAccount = "", "sa" }, "the scenario's target is azurite"},
		{"secret, entra", func(o *Options) { o.Scenario = entra }, "use --service-account NAME (workload identity) instead of --secret"},
		{"entra, nothing", func(o *Options) { o.Scenario, o.Secret = entra, "" }, "--service-account NAME"},
		{"bad secret name", func(o *Options) { o.Secret = "My_Secret" }, `--secret "My_Secret": a lowercase RFC 1123 subdomain`},
		{"secret key without secret", func(o *Options) { o.Secret, o.ServiceAccount, o.SecretKey, o.Scenario = "", "sa", "k", entra }, "--secret-key \"k\" without --secret"},
		{"bad secret key", func(o *Options) { o.SecretKey = "a key" }, `--secret-key "a key"`},
		{"bad container", func(o *Options) { o.Upload = "Results_" }, `--upload "Results_": a blob container name is 3 to 63`},
		{"no results place", func(o *Options) { o.Upload = "" }, "no place for the results: --upload CONTAINER"},
		{"bad name", func(o *Options) { o.Name = "Big.Name" }, `--name "Big.Name"`},
		{"bad quantity", func(o *Options) { o.CPU = "lots" }, `--cpu "lots": want a positive Kubernetes quantity`},
		{"zero memory", func(o *Options) { o.Memory = "0" }, `--memory "0"`},
		{"limit below request", func(o *Options) { o.CPULimit = "100m" }, "--cpu-limit 100m is below the CPU request 250m"},
		{"scenario too big for a ConfigMap", func(o *Options) {
			big := *o.Scenario
			big.Source = append(append([]byte(nil), big.Source...), strings.Repeat("#", MaxScenarioBytes)...)
			o.Scenario = &big
		}, "a ConfigMap carries at most 1032192"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := baseOptions(sc)
			tc.edit(&o)
			m, err := Build(o)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want it to say %q", err, tc.want)
			}
			if m != nil {
				t.Error("manifests built anyway")
			}
		})
	}
}

func TestNames(t *testing.T) {
	for in, want := range map[string]string{
		"quickstart":                  "stormcheck-quickstart-0badc0de",
		"Hot_Part.v2":                 "stormcheck-hot-part-v2-0badc0de",
		"a--b__c":                     "stormcheck-a-b-c-0badc0de",
		"---":                         "stormcheck-0badc0de",
		"x" + strings.Repeat("y", 60): "stormcheck-x" + strings.Repeat("y", 29) + "-0badc0de",
	} {
		if got := DefaultName(in, "0badc0de"); got != want {
			t.Errorf("DefaultName(%q) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]string{"quickstart": "quickstart", "a.b_c-": "a.b_c", strings.Repeat("z", 64): strings.Repeat("z", 63)} {
		if got := labelValue(in); got != want {
			t.Errorf("labelValue(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestNamesAlwaysValid: whatever a scenario's name (1 to 64 of letters,
// digits, '.', '_', '-', starting with a letter or digit), the default Job
// name is a DNS label and the scenario label a valid label value (or left
// out).
func TestNamesAlwaysValid(t *testing.T) {
	const first = "abcXYZ019"
	const rest = "aZ9._-"
	rng := rand.New(rand.NewPCG(1, 2))
	for range 5000 {
		b := []byte{first[rng.IntN(len(first))]}
		for range rng.IntN(64) {
			b = append(b, rest[rng.IntN(len(rest))])
		}
		name := string(b)
		if msgs := validation.IsDNS1123Label(DefaultName(name, "0badc0de")); len(msgs) > 0 {
			t.Fatalf("DefaultName(%q) = %q: %v", name, DefaultName(name, "0badc0de"), msgs)
		}
		if v := labelValue(name); v != "" && len(content.IsLabelValue(v)) > 0 {
			t.Fatalf("labelValue(%q) = %q: %v", name, v, content.IsLabelValue(v))
		}
	}
}

func TestLoadPhase(t *testing.T) {
	for src, want := range map[string]string{
		"name: a\nduration: 1m\nworkloads:\n  - {name: w, kind: blob.lww}\n  - {name: v, kind: blob.lww, duration: 2m}\n":                                "2m0s",
		"name: a\nworkloads:\n  - {name: w, kind: blob.lww, executor: open, rate: 5, stages: [{duration: 10s, target: 5}, {duration: 1m, target: 9}]}\n": "1m10s",
		"name: a\nworkloads:\n  - {name: w, kind: blob.lww, iterations: 100}\n":                                                                          "none",
	} {
		d, ok := LoadPhase(parse(t, src))
		got := d.String()
		if !ok {
			got = "none"
		}
		if got != want {
			t.Errorf("%s: load phase %s, want %s", src, got, want)
		}
	}
	o := baseOptions(parse(t, "name: a\nworkloads:\n  - {name: w, kind: blob.lww, actors: 4, iterations: 100}\n"))
	if m, err := Build(o); err != nil || m.Job.Spec.ActiveDeadlineSeconds != nil {
		t.Errorf("iterations only: err %v deadline %v, want none", err, m.Job.Spec.ActiveDeadlineSeconds)
	}
}

// Example output for the README's walk-through is made by the command;
// this keeps the quantities' text form in view.
func ExampleSize() {
	sc, _ := scenarios.Load("../scenarios/examples/quickstart.yaml")
	s := Size(sc, 4)
	fmt.Println(s.CPU.String(), s.Memory.String(), s.Memory.Cmp(resource.MustParse("131Mi")) == 0)
	// Output: 250m 131Mi true
}
