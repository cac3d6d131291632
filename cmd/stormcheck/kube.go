package main

import (
	"fmt"
	"io"
	"regexp"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/stormcheck/stormcheck/kube"
	"github.com/stormcheck/stormcheck/reports"
	"github.com/stormcheck/stormcheck/runner"
	"github.com/stormcheck/stormcheck/runner/cleanup"
	"github.com/stormcheck/stormcheck/runner/target"
	"github.com/stormcheck/stormcheck/scenarios"
)

const kubeLong = `Writes the Kubernetes manifests that run SCENARIO as N shards on a cluster:
a ConfigMap holding the scenario (byte for byte, overrides written in) and an
Indexed Job (completionMode: Indexed, completions = parallelism = N) whose pod
i runs 'stormcheck run /scenario/scenario.yaml --shards N --run-id ID' as
shard i (Kubernetes sets JOB_COMPLETION_INDEX). Nothing is sent to a
cluster: pipe the output to 'kubectl apply -f -', or keep it with --out.

Signing in (one of):
  --secret NAME            a Secret holding the connection string under key
                           connection-string (--secret-key to change it); it
                           reaches the shard as AZURE_STORAGE_CONNECTION_STRING
                           (or the scenario's connection_string_env; for an
                           account-key target, the key under account-key as
                           its key_env). A managed-Azurite scenario runs
                           against that account (--target connection-string).
  --service-account NAME   Entra ID workload identity: the pod is labelled
                           azure.workload.identity/use: "true" and runs as
                           NAME, a service account federated with an identity
                           that has Storage Blob/Queue/Table Data Contributor
                           on the scenario's account (its target must be
                           entra-id).
A secret value never goes into a manifest: a connection string or key given
on the command line is refused.

Results (one or both): --upload CONTAINER makes each shard upload its results
directory to that blob container on the target account when it ends, as
<run id>/shard-<i>-of-<N>/...; --results-volume CLAIM mounts a ReadWriteMany
PersistentVolumeClaim at /results and writes the same layout there. Then
'stormcheck merge OUT --from CONTAINER --run-id ID --target connection-string'
(or --scenario FILE for an entra-id target) fetches and merges them; the
manifests' opening comment holds the exact commands for the run.

Resources are sized from the busiest shard's share of the scenario (shard 0:
ceil(actors/N) of each workload, its share of an open loop's rate): CPU =
100m + 100 µs per call/s (a closed-loop actor counted at 100 calls/s; the
README's measured ~90 µs of client CPU per call), at least 250m; memory =
128 MiB (shards peaked at 49-71 MiB; 320 MiB for --shards 1, which runs
the checks itself) + 256 KiB per actor + the payloads each actor holds,
also the limit. No CPU limit unless --cpu-limit: CPU
throttling would show up as latency that is not the service's.

A shard is never run twice (backoffLimitPerIndex: 0): a rerun would double
its load on the target and overwrite its results. Exit code 2 of any shard
(a refused scenario) fails the whole Job at once.`

const kubeExample = `  # 4 shards of the built-in example shards, against the account in Secret stormcheck-conn,
  # results uploaded to blob container stormcheck-results
  kubectl create secret generic stormcheck-conn --from-literal=connection-string="$AZURE_STORAGE_CONNECTION_STRING"
  stormcheck kube shards --shards 4 --image ghcr.io/you/stormcheck:v1 \
      --secret stormcheck-conn --upload stormcheck-results --name shards4 --run-id 5b0e3f6a | kubectl apply -f -
  kubectl wait --for=condition=complete job/shards4 --timeout=40m
  stormcheck merge results/shards4 --from stormcheck-results --run-id 5b0e3f6a --target connection-string

  # 8 shards of it, 256 actors per workload in all, a 10-minute load starting together at a set instant
  stormcheck kube shards --shards 8 --actors 256 --set counters.keys=256 --duration 10m \
      --start-at 2026-12-01T09:00:00Z --image ghcr.io/you/stormcheck:v1 \
      --secret stormcheck-conn --upload stormcheck-results --out shards-8.yaml

  # Entra ID workload identity (the scenario's target is entra-id)
  stormcheck kube my-account.yaml --shards 4 --image ghcr.io/you/stormcheck:v1 \
      --service-account stormcheck --upload stormcheck-results`

type kubeFlags struct {
	shards                                 int
	image, runID, name, namespace, out     string
	secret, secretKey, serviceAccount      string
	upload, resultsVolume, startAt         string
	cpu, memory, cpuLimit, imagePullSecret string
	deadline                               time.Duration
	connStr                                string
	duration                               time.Duration
	actors                                 int
	rate                                   float64
	set                                    []string
}

func newKubeCmd() *cobra.Command {
	f := &kubeFlags{}
	cmd := &cobra.Command{
		Use:               "kube [flags] SCENARIO.yaml --shards N --image IMAGE (--secret NAME | --service-account NAME) (--upload CONTAINER | --results-volume CLAIM)",
		Short:             "Write Kubernetes manifests (ConfigMap + Indexed Job) that run a scenario as N shards",
		Long:              kubeLong,
		Example:           kubeExample,
		Args:              exactArgs(1, "want exactly one scenario file (try quickstart, a built-in example)"),
		ValidArgsFunction: completeYAML,
		RunE: func(cmd *cobra.Command, args []string) error {
			return kubeManifests(cmd, args[0], f)
		},
	}
	// A flag's value is echoed in a parse error: never a secret's.
	cmd.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return usageErr(c.CommandPath(), fmt.Errorf("%s: %s", c.CommandPath(), target.Redact(err.Error())))
	})
	fl := cmd.Flags()
	fl.IntVar(&f.shards, "shards", 0, "how many shards (pods) run the scenario side by side; each gets its share of every workload's actors and rate (required)")
	fl.StringVar(&f.image, "image", "", "the stormcheck image the pods run, e.g. ghcr.io/you/stormcheck:v1 (required; see the Dockerfile)")
	fl.StringVar(&f.secret, "secret", "", "name of the Secret holding the connection string (or the account key, for an account-key target)")
	fl.StringVar(&f.secretKey, "secret-key", "", "the key in --secret holding it (default connection-string, or account-key for an account-key target)")
	fl.StringVar(&f.serviceAccount, "service-account", "", "service account federated with an Entra ID identity (workload identity; the scenario's target must be entra-id)")
	fl.StringVar(&f.upload, "upload", "", "blob container on the target account each shard uploads its results to, as <run id>/shard-<i>-of-<N>/")
	fl.StringVar(&f.resultsVolume, "results-volume", "", "ReadWriteMany PersistentVolumeClaim mounted at /results; each shard writes /results/<run id>/shard-<i>-of-<N>")
	fl.StringVar(&f.runID, "run-id", "", "the run id every shard shares: 8 lower-case hex digits (default: a new random one)")
	fl.StringVar(&f.startAt, "start-at", "", "RFC 3339 instant every shard's load starts at (or +DURATION from now, e.g. +3m); default: shard 0 sets it once setup is done")
	fl.StringVar(&f.name, "name", "", "name of the Job and ConfigMap (default stormcheck-<scenario>-<run id>)")
	fl.StringVar(&f.namespace, "namespace", "", "namespace of the Job and ConfigMap (default: kubectl's current one)")
	fl.StringVar(&f.cpu, "cpu", "", "CPU request per shard, e.g. 500m or 2, instead of the one sized from the scenario")
	fl.StringVar(&f.memory, "memory", "", "memory request and limit per shard, e.g. 1Gi, instead of the one sized from the scenario")
	fl.StringVar(&f.cpuLimit, "cpu-limit", "", "CPU limit per shard (default none: throttling would look like service latency)")
	fl.StringVar(&f.imagePullSecret, "image-pull-secret", "", "Secret to pull --image from a private registry")
	fl.DurationVar(&f.deadline, "deadline", 0, "the Job's activeDeadlineSeconds (default: the load phase + 30m; -1s for none)")
	fl.StringVarP(&f.out, "out", "o", "", "write the manifests to this file (atomically) instead of stdout")
	fl.DurationVar(&f.duration, "duration", 0, "set the load phase of every workload (written into the ConfigMap's scenario), as run --duration")
	fl.IntVar(&f.actors, "actors", 0, "set every workload's actors in all (divided across the shards), as run --actors")
	fl.Float64Var(&f.rate, "rate", 0, "set every open-loop workload's starting rate in all (divided across the shards), as run --rate")
	fl.StringArrayVar(&f.set, "set", nil, "set WORKLOAD.FIELD=VALUE in the scenario, as run --set; repeatable")
	fl.StringVar(&f.connStr, "connection-string", "", "refused: a connection string never goes into a manifest (use --secret)")
	_ = fl.MarkHidden("connection-string")
	return cmd
}

// secretShaped matches what looks like a connection string, key or SAS.
var secretShaped = regexp.MustCompile(`(?i)(DefaultEndpointsProtocol|AccountName|AccountKey|SharedAccessSignature|BlobEndpoint|UseDevelopmentStorage)=|[?&]sig=`)

// looksSecret reports whether v may hold a secret value.
func looksSecret(v string) bool {
	return secretShaped.MatchString(v) || target.Redact(v) != v
}

const refuseSecret = "a connection string or key never goes into a manifest or on the command line; put it in a Secret:\n" +
	`  kubectl create secret generic stormcheck-conn --from-literal=connection-string="$AZURE_STORAGE_CONNECTION_STRING"` +
	"\nand pass --secret stormcheck-conn"

func kubeManifests(cmd *cobra.Command, file string, f *kubeFlags) error {
	path := cmd.CommandPath()
	fl := cmd.Flags()
	if fl.Changed("connection-string") {
		return usageErr(path, fmt.Errorf("%s: --connection-string refused: %s", path, refuseSecret))
	}
	var leaked []string
	fl.Visit(func(p *pflag.Flag) {
		if looksSecret(p.Value.String()) {
			leaked = append(leaked, "--"+p.Name)
		}
	})
	if looksSecret(file) {
		leaked = append(leaked, "the scenario argument")
	}
	if len(leaked) > 0 {
		return usageErr(path, fmt.Errorf("%s: %s holds what looks like a connection string or key (not shown): %s", path, strings.Join(leaked, ", "), refuseSecret))
	}
	for name, bad := range map[string]bool{"duration": f.duration <= 0, "actors": f.actors <= 0, "rate": f.rate <= 0} {
		if fl.Changed(name) && bad {
			return usageErr(path, fmt.Errorf("%s: --%s %s: must be above 0", path, name, fl.Lookup(name).Value))
		}
	}
	if !fl.Changed("shards") {
		return usageErr(path, fmt.Errorf("%s: --shards N is required: how many pods share the load", path))
	}
	runID := f.runID
	if runID == "" {
		runID = cleanup.NewRunID()
	} else if !cleanup.ValidRunID(runID) {
		return usageErr(path, fmt.Errorf("%s: --run-id %q: a run id is 8 lower-case hex digits, e.g. 5b0e3f6a (it names the run's resources sc<run id>...)", path, runID))
	}
	now := time.Now()
	startAt, err := parseStartAt(f.startAt, now)
	if err != nil {
		return usageErr(path, fmt.Errorf("%s: %w", path, err))
	}
	sc, notes, err := scenarios.LoadWithOverrides(file, scenarios.Overrides{Actors: f.actors, Rate: f.rate, Duration: f.duration, Set: f.set})
	if err != nil {
		return &exitError{code: exitUsage, err: err}
	}
	stderr := cmd.ErrOrStderr()
	for _, n := range append(notes, sc.Notes...) {
		fmt.Fprintln(stderr, "stormcheck: note:", n)
	}
	if f.shards > 1 {
		// Each shard cuts its part when it starts; a cut that cannot be
		// made would stop every pod.
		if err := runner.CheckShardCut(sc, f.shards); err != nil {
			return usageErr(path, fmt.Errorf("%s: %s: %d shards: %w", path, file, f.shards, err))
		}
	}
	m, err := kube.Build(kube.Options{
		Scenario: sc, Shards: f.shards, Image: f.image, RunID: runID,
		Name: f.name, Namespace: f.namespace,
		Secret: f.secret, SecretKey: f.secretKey, ServiceAccount: f.serviceAccount,
		Upload: f.upload, ResultsVolume: f.resultsVolume, StartAt: startAt,
		CPU: f.cpu, Memory: f.memory, CPULimit: f.cpuLimit, ImagePullSecret: f.imagePullSecret,
		Deadline: f.deadline, Now: now,
	})
	if err != nil {
		return usageErr(path, fmt.Errorf("%s: %s", path, strings.ReplaceAll(err.Error(), "\n", "\n  ")))
	}
	header := kubeHeader(sc, m, f, runID)
	write := func(w io.Writer) error { return m.WriteYAML(w, header) }
	if f.out != "" {
		if err := reports.WriteFileAtomic(f.out, write); err != nil {
			return &exitError{code: exitUsage, err: fmt.Errorf("%s: writing %s: %w", path, f.out, err)}
		}
	} else if err := write(cmd.OutOrStdout()); err != nil {
		return &exitError{code: exitHarness, err: fmt.Errorf("%s: %w", path, err)}
	}
	res := m.Job.Spec.Template.Spec.Containers[0].Resources
	fmt.Fprintf(stderr, "stormcheck: job/%s: %d shard(s) of %s, run id %s; each requests cpu %s, memory %s\n",
		m.Job.Name, f.shards, sc.Name, runID, res.Requests.Cpu(), res.Requests.Memory())
	return nil
}

// kubeHeader is the comment at the top of the manifests: what they run and
// the commands that follow the run to its merged report.
func kubeHeader(sc *scenarios.Scenario, m *kube.Manifests, f *kubeFlags, runID string) string {
	job := m.Job.Name
	ns := ""
	if f.namespace != "" {
		ns = " -n " + f.namespace
	}
	var b strings.Builder
	fmt.Fprintf(&b, "stormcheck kube: scenario %s as %d shards, run id %s.\n", sc.Name, f.shards, runID)
	fmt.Fprintf(&b, "Resources per shard: %s\n\n", m.Sizing.Explain())
	file := "THIS_FILE"
	if f.out != "" {
		file = f.out
	}
	fmt.Fprintf(&b, "  kubectl apply%s -f %s\n", ns, file)
	timeout := "24h"
	if d := m.Job.Spec.ActiveDeadlineSeconds; d != nil {
		timeout = fmt.Sprintf("%ds", *d)
	}
	fmt.Fprintf(&b, "  kubectl wait%s --for=condition=complete job/%s --timeout=%s\n", ns, job, timeout)
	fmt.Fprintf(&b, "  kubectl logs%s -f job/%s    (shard 0; kubectl logs%s -l %s=%s --prefix for all)\n", ns, job, ns, kube.RunIDLabel, runID)
	if f.upload != "" {
		tgt := " --target connection-string"
		if sc.Target.Kind == scenarios.TargetEntraID || sc.Target.Kind == scenarios.TargetAccountKey {
			tgt = " --scenario " + sc.File // its target holds the container
		}
		fmt.Fprintf(&b, "  stormcheck merge results/%s --from %s --run-id %s%s\n", job, f.upload, runID, tgt)
	} else {
		fmt.Fprintf(&b, "  stormcheck merge results/%s /mnt/%s/%s/shard-*    (the volume %s mounted at /mnt)\n", job, f.resultsVolume, runID, f.resultsVolume)
	}
	return b.String()
}

// parseStartAt reads --start-at: RFC 3339, or +DURATION from now.
func parseStartAt(v string, now time.Time) (time.Time, error) {
	if v == "" {
		return time.Time{}, nil
	}
	if rest, ok := strings.CutPrefix(v, "+"); ok {
		d, err := time.ParseDuration(rest)
		if err != nil || d <= 0 {
			return time.Time{}, fmt.Errorf("--start-at %q: want an RFC 3339 instant (2026-12-01T09:00:00Z) or +DURATION from now (+3m)", v)
		}
		return now.Add(d).Truncate(time.Second), nil
	}
	t, err := time.Parse(time.RFC3339, v)
	if err != nil {
		return time.Time{}, fmt.Errorf("--start-at %q: want an RFC 3339 instant such as 2026-12-01T09:00:00Z (or +DURATION from now, e.g. +3m)", v)
	}
	if !t.After(now) {
		return time.Time{}, fmt.Errorf("--start-at %s is not in the future (now %s): the shards could only all start late", v, now.UTC().Format(time.RFC3339))
	}
	return t, nil
}
