package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/stormcheck/stormcheck/reports"
	"github.com/stormcheck/stormcheck/runner"
)

// podEnv is the environment the kubelet would give shard index's container:
// each variable of the manifest, a Secret's value from secrets, the
// completion index from the pod's annotation. Nothing else of this
// process's environment that names a storage account is kept.
func podEnv(t *testing.T, c corev1.Container, index int, secrets map[string]map[string]string) []string {
	t.Helper()
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "AZURE_") && !strings.HasPrefix(kv, "JOB_COMPLETION_INDEX=") {
			env = append(env, kv)
		}
	}
	for _, e := range c.Env {
		switch {
		case e.ValueFrom == nil:
			env = append(env, e.Name+"="+e.Value)
		case e.ValueFrom.SecretKeyRef != nil:
			ref := e.ValueFrom.SecretKeyRef
			v, ok := secrets[ref.Name][ref.Key]
			if !ok {
				t.Fatalf("env %s: no key %s in secret %s", e.Name, ref.Key, ref.Name)
			}
			env = append(env, e.Name+"="+v)
		case e.ValueFrom.FieldRef != nil && e.ValueFrom.FieldRef.FieldPath == "metadata.annotations['batch.kubernetes.io/job-completion-index']":
			env = append(env, e.Name+"="+strconv.Itoa(index))
		default:
			t.Fatalf("env %s: a source this test does not provide: %+v", e.Name, e.ValueFrom)
		}
	}
	return env
}

// expandArgs does what the kubelet does to $(VAR) in args, and maps the
// pod's paths to this machine's.
func expandArgs(args, env []string, paths map[string]string) []string {
	vars := map[string]string{}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		vars[k] = v
	}
	ref := regexp.MustCompile(`\$\(([A-Za-z_][A-Za-z0-9_]*)\)`)
	out := make([]string, len(args))
	for i, a := range args {
		a = ref.ReplaceAllStringFunc(a, func(m string) string {
			if v, ok := vars[m[2:len(m)-1]]; ok {
				return v
			}
			return m
		})
		for from, to := range paths {
			if a == from || strings.HasPrefix(a, from+"/") {
				a = to + a[len(from):]
			}
		}
		out[i] = a
	}
	return out
}

// TestKubeManifestsRunAsShards plays the cluster: it runs each pod of the
// Job stormcheck kube wrote as a process, with exactly the container's
// args and the environment the kubelet would give it (the Secret's value,
// JOB_COMPLETION_INDEX from the pod annotation, $(VAR) expanded), against
// one managed Azurite standing in for the account behind the Secret, the
// ConfigMap's scenario at /scenario and a shared directory at /results (a
// --results-volume). Every shard must finish, write its results under
// /results/<run id>/shard-<i>-of-<N> and upload them; then the README's last
// step, stormcheck merge --from the container, merges them.
func TestKubeManifestsRunAsShards(t *testing.T) {
	rig := newShardRig(t, "kube-shards.yaml", `name: kube-shards
duration: 2s
workloads:
  - name: counter
    kind: blob.etag-counter
    actors: 4
    keys: 4
  - name: race
    kind: blob.etag-counter
    actors: 3
    keys: 1
    shard_keys: shared
`)
	bin, ctx, inst, dir, scen := rig.bin, rig.ctx, rig.inst, rig.dir, rig.file
	const runID, n, upload = "c0ffee42", 3, "kube-results"
	code, out, errOut := kubeRun(scen, "--shards", strconv.Itoa(n), "--image", "stormcheck:test", "--run-id", runID,
		"--secret", "stormcheck-conn", "--upload", upload, "--results-volume", "stormcheck-rwx")
	if code != exitOK {
		t.Fatalf("kube: exit %d\n%s", code, errOut)
	}
	cm, job := decodeKube(t, out)
	scenarioFile := filepath.Join(dir, "scenario", "scenario.yaml")
	if err := os.MkdirAll(filepath.Dir(scenarioFile), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(scenarioFile, []byte(cm.Data["scenario.yaml"]), 0o644); err != nil {
		t.Fatal(err)
	}
	volume := filepath.Join(dir, "volume")
	secrets := map[string]map[string]string{"stormcheck-conn": {"connection-string": inst.ConnectionString()}}
	c := job.Spec.Template.Spec.Containers[0]

	peaks := make([]int64, n) // peak RSS, bytes
	cmds := make([]*exec.Cmd, n)
	for i := range n {
		env := podEnv(t, c, i, secrets)
		args := expandArgs(c.Args, env, map[string]string{"/scenario": filepath.Dir(scenarioFile), "/results": volume})
		cmds[i] = exec.CommandContext(ctx, bin, args...)
		cmds[i].Env = env
	}
	logs, errs := runSideBySide(cmds)
	for i := range n {
		if errs[i] != nil {
			t.Fatalf("shard %d: %v\n%s", i, errs[i], logs[i])
		}
		b, err := os.ReadFile(filepath.Join(volume, runID, fmt.Sprintf("shard-%d-of-%d", i, n), runner.SummaryFile))
		if err != nil {
			t.Fatalf("shard %d wrote no summary on the volume: %v\n%s", i, err, logs[i])
		}
		var s reports.Summary
		if err := json.Unmarshal(b, &s); err != nil {
			t.Fatal(err)
		}
		if s.Shard == nil || s.Shard.Index != i || s.Shard.Count != n || s.RunID != runID {
			t.Errorf("shard %d: summary says shard %+v, run id %q", i, s.Shard, s.RunID)
		}
		// The shard's own high-water mark (VmHWM). Not the exited child's
		// rusage maxrss: Linux starts it at this test process's resident
		// set (the mm exec replaced), so every shard "peaked" at the
		// test binary's size.
		peaks[i] = s.PeakRSS
		if peaks[i] <= 0 {
			t.Errorf("shard %d: summary has no peak_rss_bytes", i)
		}
	}

	// The sizing rule holds for these shards: none used more memory than
	// the manifests request (and limit) for it.
	limit := c.Resources.Limits.Memory().Value()
	for i, p := range peaks {
		t.Logf("shard %d: peak RSS %.1f MiB (limit %.0f MiB)", i, float64(p)/(1<<20), float64(limit)/(1<<20))
		if p > limit {
			t.Errorf("shard %d peaked at %d bytes, over the memory limit %d the manifests set", i, p, limit)
		}
	}

	// Every shard's results are in the upload container too, named as
	// merge --from reads them.
	rig.checkUploads(t, upload, runID, n, logs)

	// The README's last step, both ways: from the container, and from the
	// shared volume. Each merge holds every shard and every operation, and
	// its checks pass (the race on the shared key crossed the shards).
	shardDirs := make([]string, n)
	for i := range n {
		shardDirs[i] = filepath.Join(volume, runID, fmt.Sprintf("shard-%d-of-%d", i, n))
	}
	want := int64(0)
	for _, d := range shardDirs {
		want += opCount(t, d)
	}
	env := append(os.Environ(), "AZURE_STORAGE_CONNECTION_STRING="+inst.ConnectionString())
	for name, args := range map[string][]string{
		"from the container": {"--from", upload, "--run-id", runID, "--target", "connection-string"},
		"from the volume":    shardDirs,
	} {
		merged := filepath.Join(dir, "merged-"+strings.ReplaceAll(name, " ", "-"))
		cmd := exec.CommandContext(ctx, bin, append([]string{"merge", merged}, args...)...)
		cmd.Env = env
		mout, err := cmd.CombinedOutput()
		// 0, or 4 when a timeout on a loaded machine left a check undecided;
		// never a violation.
		if cmd.ProcessState == nil {
			t.Fatalf("merge %s: %v", name, err)
		}
		if code := cmd.ProcessState.ExitCode(); code != exitOK && code != exitUndecided {
			t.Fatalf("merge %s: %v (exit %d)\n%s", name, err, code, mout)
		}
		b, err := os.ReadFile(filepath.Join(merged, runner.SummaryFile))
		if err != nil {
			t.Fatal(err)
		}
		var s struct {
			MergedFrom []json.RawMessage `json:"merged_from"`
			Checks     []struct {
				Name    string `json:"name"`
				Verdict string `json:"verdict"`
			} `json:"checks"`
		}
		if err := json.Unmarshal(b, &s); err != nil {
			t.Fatal(err)
		}
		if len(s.MergedFrom) != n || len(s.Checks) == 0 {
			t.Errorf("merge %s: merged_from holds %d shards (want %d), %d checks:\n%s", name, len(s.MergedFrom), n, len(s.Checks), mout)
		}
		if got := opCount(t, merged); got != want {
			t.Errorf("merge %s: %d operations, the shards recorded %d", name, got, want)
		}
	}
}

// opCount is how many operations a results directory's summary counts.
func opCount(t *testing.T, dir string) int64 {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, runner.SummaryFile))
	if err != nil {
		t.Fatal(err)
	}
	var s reports.Summary
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	var n int64
	for _, w := range s.Workloads {
		for _, op := range w.Ops {
			n += op.Count
		}
	}
	return n
}
