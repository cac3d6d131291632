package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// kubeRun runs `stormcheck kube ARGS` in-process.
func kubeRun(args ...string) (code int, stdout, stderr string) {
	var out, errOut bytes.Buffer
	code = run(append([]string{"kube"}, args...), &out, &errOut)
	return code, out.String(), errOut.String()
}

// decodeKube decodes kube's output strictly into the API types.
func decodeKube(t *testing.T, stream string) (corev1.ConfigMap, batchv1.Job) {
	t.Helper()
	docs := strings.Split(stream, "\n---\n")
	if len(docs) != 3 {
		t.Fatalf("want a header and 2 documents, got %d parts:\n%s", len(docs), stream)
	}
	var cm corev1.ConfigMap
	var job batchv1.Job
	if err := yaml.UnmarshalStrict([]byte(docs[1]), &cm); err != nil {
		t.Fatalf("ConfigMap: %v", err)
	}
	if err := yaml.UnmarshalStrict([]byte(docs[2]), &job); err != nil {
		t.Fatalf("Job: %v", err)
	}
	return cm, job
}

const kubeScenario = "../../scenarios/examples/shards.yaml"

var kubeArgs = []string{kubeScenario, "--shards", "4", "--image", "ghcr.io/you/stormcheck:v1", "--secret", "stormcheck-conn", "--upload", "stormcheck-results"}

func TestKubeWritesManifests(t *testing.T) {
	// A connection string in the environment stays out of the manifests.
	const secret = "c2VjcmV0LWtleS1ub3QtZm9yLXRoZS1tYW5pZmVzdA=="
	t.Setenv("AZURE_STORAGE_CONNECTION_STRING", "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey="+secret)
	code, out, errOut := kubeRun(append(kubeArgs, "--run-id", "0badc0de", "--actors", "32")...)
	if code != exitOK {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	if strings.Contains(out+errOut, secret) || strings.Contains(out, "AccountKey") {
		t.Fatal("the connection string's key reached the output")
	}
	cm, job := decodeKube(t, out)
	if *job.Spec.Completions != 4 || *job.Spec.Parallelism != 4 || *job.Spec.CompletionMode != batchv1.IndexedCompletion {
		t.Errorf("job spec %+v", job.Spec)
	}
	c := job.Spec.Template.Spec.Containers[0]
	if !slices.Equal(c.Args[:8], []string{"run", "/scenario/scenario.yaml", "--shards", "4", "--run-id", "0badc0de", "--out", "/results"}) ||
		!strings.Contains(strings.Join(c.Args, " "), "--upload stormcheck-results") {
		t.Errorf("args %q", c.Args)
	}
	// --actors 32 is written into the scenario the shards run: every
	// workload gets 32, so 8 + 8 actors on the busiest shard.
	if sc := cm.Data["scenario.yaml"]; strings.Count(sc, "actors: 32") != 2 || strings.Contains(sc, "actors: 64") || !strings.Contains(sc, "run with --actors 32") {
		t.Errorf("scenario in the ConfigMap:\n%s", cm.Data["scenario.yaml"])
	}
	if got := c.Resources.Requests.Memory().String(); got != "132Mi" {
		t.Errorf("memory %s, want 132Mi (128 MiB + 16 actors × 256 KiB)", got)
	}
	if !strings.Contains(errOut, "job/stormcheck-shards-0badc0de: 4 shard(s) of shards, run id 0badc0de; each requests cpu 300m, memory 132Mi") {
		t.Errorf("stderr: %s", errOut)
	}
	for _, want := range []string{
		"kubectl wait --for=condition=complete job/stormcheck-shards-0badc0de --timeout=1860s",
		"stormcheck merge results/stormcheck-shards-0badc0de --from stormcheck-results --run-id 0badc0de --target connection-string",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("header lacks %q:\n%s", want, out[:strings.Index(out, "---")])
		}
	}
}

// TestKubeScenarioUnchanged: without overrides the ConfigMap holds the file
// byte for byte, and every run gets its own run id.
func TestKubeScenarioUnchanged(t *testing.T) {
	src, err := os.ReadFile(kubeScenario)
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{}
	for range 2 {
		code, out, errOut := kubeRun(kubeArgs...)
		if code != exitOK {
			t.Fatalf("exit %d\n%s", code, errOut)
		}
		cm, job := decodeKube(t, out)
		if cm.Data["scenario.yaml"] != string(src) {
			t.Error("the ConfigMap's scenario differs from the file")
		}
		ids[job.Labels["stormcheck.io/run-id"]] = true
	}
	if len(ids) != 2 {
		t.Errorf("run ids %v: want a new one each time", ids)
	}
}

// TestKubeOutFile: --out writes the file atomically: a failed write leaves
// the old file as it was.
func TestKubeOutFile(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "qs.yaml")
	code, out, errOut := kubeRun(append(kubeArgs, "--out", file)...)
	if code != exitOK || out != "" {
		t.Fatalf("exit %d, stdout %q\n%s", code, out, errOut)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	decodeKube(t, string(data))
	if !strings.Contains(string(data), "#   kubectl apply -f "+file+"\n") {
		t.Errorf("the header does not name the file to apply:\n%s", data[:bytes.Index(data, []byte("---"))])
	}
	// Refused input: the file is left alone.
	if code, _, _ := kubeRun(kubeScenario, "--shards", "0", "--image", "x", "--secret", "s", "--upload", "abc", "--out", file); code != exitUsage {
		t.Errorf("exit %d", code)
	}
	if again, _ := os.ReadFile(file); !bytes.Equal(again, data) {
		t.Error("a refused run changed --out")
	}
	if code, _, errOut := kubeRun(append(kubeArgs, "--out", filepath.Join(dir, "no", "such", "dir.yaml"))...); code != exitUsage || !strings.Contains(errOut, "writing "+filepath.Join(dir, "no", "such", "dir.yaml")) {
		t.Errorf("unwritable --out: exit %d\n%s", code, errOut)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("temporary files left: %v", entries)
	}
}

// TestKubeRefusesSecrets: a connection string or key is never taken on the
// command line, and never echoed when refused.
// TestKubeHeaderMergeCommand: the merge command in the header signs in as
// the scenario's target does.
func TestKubeHeaderMergeCommand(t *testing.T) {
	scen := filepath.Join(t.TempDir(), "entra.yaml")
	if err := os.WriteFile(scen, []byte("name: entra\ntarget: {kind: entra-id, account: myaccount}\nworkloads:\n  - {name: w, kind: blob.lww, actors: 8, keys: 8, duration: 1m}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := kubeRun(scen, "--shards", "2", "--image", "x", "--service-account", "wi", "--upload", "abc", "--run-id", "0badc0de")
	if code != exitOK {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	if want := "stormcheck merge results/stormcheck-entra-0badc0de --from abc --run-id 0badc0de --scenario " + scen; !strings.Contains(out, want) {
		t.Errorf("header lacks %q:\n%s", want, out[:strings.Index(out, "---")])
	}
}

func TestKubeRefusesSecrets(t *testing.T) {
	const key = "QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo="
	cs := "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=" + key + ";EndpointSuffix=core.windows.net"
	base := []string{kubeScenario, "--shards", "4", "--image", "x", "--upload", "abc"}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{append(base, "--secret", "s", "--connection-string", cs), "--connection-string refused: a connection string or key never goes into a manifest"},
		{append(base, "--secret", cs), "--secret holds what looks like a connection string or key (not shown)"},
		{append(base, "--secret", "s", "--set", "counter.payload_bytes="+cs), "--set holds what looks like"},
		{append(base, "--secret", "s", "--image", "registry/x?sv=2024&sig="+key), "--image holds what looks like"},
		{append(base, "--secret", "s", "--shards", "AccountKey="+key), "invalid argument"},
	} {
		code, out, errOut := kubeRun(tc.args...)
		if code != exitUsage || out != "" || !strings.Contains(errOut, tc.want) {
			t.Errorf("%q: exit %d, stdout %q\nstderr %s", tc.args, code, out, errOut)
		}
		if strings.Contains(out+errOut, key) {
			t.Errorf("%q: the key was echoed:\n%s", tc.args, errOut)
		}
		if !strings.Contains(tc.want, "invalid argument") && !strings.Contains(errOut, "kubectl create secret generic") {
			t.Errorf("the refusal does not say what to do instead:\n%s", errOut)
		}
	}
}

func TestKubeBadInput(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{kubeScenario, "--image", "x", "--secret", "s", "--upload", "abc"}, "--shards N is required"},
		{[]string{kubeScenario, "--shards", "0", "--image", "x", "--secret", "s", "--upload", "abc"}, "--shards 0: want 1 to 10000 shards"},
		{[]string{kubeScenario, "--shards", "4", "--secret", "s", "--upload", "abc"}, "--image is required"},
		{[]string{kubeScenario, "--shards", "4", "--image", "x", "--upload", "abc"}, "no credentials"},
		{[]string{kubeScenario, "--shards", "4", "--image", "x", "--secret", "s"}, "no place for the results"},
		{[]string{"no-such-scenario.yaml", "--shards", "4", "--image", "x", "--secret", "s", "--upload", "abc"}, "no-such-scenario.yaml"},
		{[]string{kubeScenario, "--shards", "4", "--image", "x", "--secret", "s", "--upload", "abc", "--run-id", "XYZ"}, `--run-id "XYZ": a run id is 8 lower-case hex digits`},
		{[]string{kubeScenario, "--shards", "4", "--image", "x", "--secret", "s", "--upload", "abc", "--start-at", "tomorrow"}, `--start-at "tomorrow": want an RFC 3339 instant`},
		{[]string{kubeScenario, "--shards", "4", "--image", "x", "--secret", "s", "--upload", "abc", "--start-at", "2020-01-01T00:00:00Z"}, "is not in the future"},
		{[]string{kubeScenario, "--shards", "4", "--image", "x", "--secret", "s", "--upload", "abc", "--actors", "0"}, "--actors 0: must be above 0"},
		{[]string{kubeScenario, "--shards", "65", "--image", "x", "--secret", "s", "--upload", "abc"}, "use --shards 64 at most"},
		{[]string{"../../scenarios/examples/quickstart.yaml", "--shards", "4", "--image", "x", "--secret", "s", "--upload", "abc"}, "4 shards: workload counter: shard_keys divided gives each of the 4 shards that run it a disjoint part of its keys, and it has 1"},
		{[]string{kubeScenario, "--shards", "4", "--image", "x", "--secret", "s", "--upload", "abc", "--set", "nope.actors=3"}, `no workload named "nope"`},
	} {
		code, out, errOut := kubeRun(tc.args...)
		if code != exitUsage || out != "" || !strings.Contains(errOut, tc.want) {
			t.Errorf("%q: exit %d, want 2 saying %q\nstdout %q\nstderr %s", tc.args, code, tc.want, out, errOut)
		}
	}
}

// TestKubectlReadsTheManifests: kubectl itself, offline (no API server
// here), reads the output: `kubectl label --local` parses every document,
// and `kubectl set env --local --list` decodes the Job into its typed API
// and lists where each variable comes from. Skipped without kubectl.
func TestKubectlReadsTheManifests(t *testing.T) {
	kubectl, err := exec.LookPath("kubectl")
	if err != nil {
		t.Skip("kubectl not installed")
	}
	code, out, errOut := kubeRun(append(kubeArgs, "--run-id", "0badc0de")...)
	if code != exitOK {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	dir := t.TempDir()
	all := filepath.Join(dir, "all.yaml")
	jobFile := filepath.Join(dir, "job.yaml")
	docs := strings.Split(out, "\n---\n")
	if err := os.WriteFile(all, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(jobFile, []byte(docs[2]), 0o644); err != nil {
		t.Fatal(err)
	}
	kc := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(kubectl, args...)
		// No cluster: a kubeconfig that does not exist, so nothing is asked
		// of any server.
		cmd.Env = append(os.Environ(), "KUBECONFIG="+filepath.Join(dir, "no-kubeconfig"))
		b, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, b)
		}
		return string(b)
	}
	labelled := kc("label", "--local", "-f", all, "stormcheck.io/probe=1", "-o", "name")
	if !strings.Contains(labelled, "configmap/stormcheck-shards-0badc0de") || !strings.Contains(labelled, "job.batch/stormcheck-shards-0badc0de") {
		t.Errorf("kubectl read:\n%s", labelled)
	}
	env := kc("set", "env", "--local", "-f", jobFile, "--list")
	for _, want := range []string{
		"# Job stormcheck-shards-0badc0de, container shard",
		"# AZURE_STORAGE_CONNECTION_STRING from secret stormcheck-conn, key connection-string",
		"# JOB_COMPLETION_INDEX from field path metadata.annotations['batch.kubernetes.io/job-completion-index']",
	} {
		if !strings.Contains(env, want) {
			t.Errorf("kubectl set env --list lacks %q:\n%s", want, env)
		}
	}
	// kubectl's typed decoding is not lenient: a wrong type is refused.
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte(strings.Replace(docs[2], "completions: 4", "completions: four", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(kubectl, "set", "env", "--local", "-f", bad, "--list")
	cmd.Env = append(os.Environ(), "KUBECONFIG="+filepath.Join(dir, "no-kubeconfig"))
	if b, err := cmd.CombinedOutput(); err == nil {
		t.Errorf("kubectl took completions: four:\n%s", b)
	}
}
