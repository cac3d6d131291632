// Package kube builds the Kubernetes manifests that run a scenario as N
// shards: a ConfigMap holding the scenario and an Indexed Job whose pod i
// runs `stormcheck run --shards N` as shard i (JOB_COMPLETION_INDEX). The
// objects are the official API types (k8s.io/api) serialized with
// sigs.k8s.io/yaml; nothing here talks to a cluster.
package kube

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/api/validate/content"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/stormcheck/stormcheck/scenarios"
)

// Paths and names inside the pod.
const (
	ContainerName = "shard"
	ScenarioKey   = "scenario.yaml"
	ScenarioDir   = "/scenario"
	ScenarioPath  = ScenarioDir + "/" + ScenarioKey
	ResultsDir    = "/results"
	TmpDir        = "/tmp"
	// NonRootUID is distroless's "nonroot" user and group, the image's USER.
	NonRootUID = 65532
	// IndexEnv is the variable Kubernetes sets to a pod's completion index;
	// stormcheck run takes its shard number from it.
	IndexEnv = "JOB_COMPLETION_INDEX"
	// DefaultConnectionStringEnv is where a connection string is read from.
	DefaultConnectionStringEnv = "AZURE_STORAGE_CONNECTION_STRING"
	// Default keys of the user's Secret.
	DefaultConnectionStringKey = "connection-string"
	DefaultAccountKeyKey       = "account-key"
	// WorkloadIdentityLabel makes the Azure Workload Identity webhook give
	// the pod its federated token and AZURE_CLIENT_ID / AZURE_TENANT_ID.
	WorkloadIdentityLabel = "azure.workload.identity/use"
	// RunIDLabel carries the run id on every object and pod.
	RunIDLabel    = "stormcheck.io/run-id"
	ScenarioLabel = "stormcheck.io/scenario"
	// GracePeriod lets a shard told to stop (SIGTERM, as Ctrl-C) do its
	// final reads, its cleanup (bounded at 1m), write its results and
	// upload them.
	GracePeriod = 180 * time.Second
	// DeadlineSlack is added to the load phase for the Job's deadline:
	// image pulls, setup, the rendezvous, final reads, checks, cleanup,
	// upload.
	DeadlineSlack = 30 * time.Minute
	// MaxScenarioBytes is the largest scenario a ConfigMap carries: the API
	// server refuses an object over 1 MiB, metadata included.
	MaxScenarioBytes = 1<<20 - 16<<10
	// MaxShards bounds --shards (and the scenario's 10,000 actors bound
	// every workload, so no shard may be left without actors anyway).
	MaxShards = 10000
)

// Options say what to build.
type Options struct {
	// Scenario is the loaded scenario; its Source goes into the ConfigMap
	// byte for byte.
	Scenario *scenarios.Scenario
	// Shards is N: completions and parallelism.
	Shards int
	// Image is the stormcheck image (see the Dockerfile).
	Image string
	// RunID is the run id every shard shares (checked by the caller).
	RunID string
	// Name names the Job and the ConfigMap (default
	// stormcheck-<scenario>-<run id>); Namespace, when set, is theirs.
	Name, Namespace string
	// Secret names the Secret holding the connection string (or, for an
	// account-key target, the account key) under SecretKey.
	Secret, SecretKey string
	// ServiceAccount names the service account federated with an Entra ID
	// identity (Azure Workload Identity), for an entra-id target.
	ServiceAccount string
	// Upload is the blob container each shard uploads its results to.
	Upload string
	// ResultsVolume is a PersistentVolumeClaim (ReadWriteMany) the shards
	// write their results directories to.
	ResultsVolume string
	// StartAt, when set, is the instant every shard's load starts.
	StartAt time.Time
	// CPU, Memory override the sized requests; CPULimit sets a CPU limit
	// (none by default). Kubernetes quantities, "" for the default.
	CPU, Memory, CPULimit string
	// ImagePullSecret names a Secret for a private registry.
	ImagePullSecret string
	// Deadline is the Job's activeDeadlineSeconds: 0 sizes it (load phase
	// + DeadlineSlack, none for a scenario bounded by iterations only), < 0
	// sets none.
	Deadline time.Duration
	// Now is the time the manifests are made (for StartAt's wait).
	Now time.Time
}

// Manifests are the objects to apply, in order.
type Manifests struct {
	ConfigMap *corev1.ConfigMap
	Job       *batchv1.Job
	Sizing    Sizing
	// Args are the container's arguments (also in Job).
	Args []string
}

// Build makes the manifests, or says which option is wrong and what is
// allowed.
func Build(o Options) (*Manifests, error) {
	sc := o.Scenario
	if sc == nil {
		return nil, errors.New("no scenario")
	}
	if err := check(o); err != nil {
		return nil, err
	}
	name := o.Name
	if name == "" {
		name = DefaultName(sc.Name, o.RunID)
	}
	target, err := targetFor(o)
	if err != nil {
		return nil, err
	}
	sizing := Size(sc, o.Shards)
	requests := corev1.ResourceList{corev1.ResourceCPU: sizing.CPU, corev1.ResourceMemory: sizing.Memory}
	for res, v := range map[corev1.ResourceName]string{corev1.ResourceCPU: o.CPU, corev1.ResourceMemory: o.Memory} {
		if v != "" {
			q, err := parseQuantity("--"+string(res), v)
			if err != nil {
				return nil, err
			}
			requests[res] = q
		}
	}
	limits := corev1.ResourceList{corev1.ResourceMemory: requests[corev1.ResourceMemory]}
	if o.CPULimit != "" {
		q, err := parseQuantity("--cpu-limit", o.CPULimit)
		if err != nil {
			return nil, err
		}
		if q.Cmp(requests[corev1.ResourceCPU]) < 0 {
			return nil, fmt.Errorf("--cpu-limit %s is below the CPU request %s: raise it, or lower the request with --cpu", o.CPULimit, requests.Cpu())
		}
		limits[corev1.ResourceCPU] = q
	}

	labels := map[string]string{
		"app.kubernetes.io/name":       "stormcheck",
		"app.kubernetes.io/instance":   name,
		"app.kubernetes.io/managed-by": "stormcheck",
		RunIDLabel:                     o.RunID,
	}
	if v := labelValue(sc.Name); v != "" {
		labels[ScenarioLabel] = v
	}
	withLabels := func(component string, extra map[string]string) map[string]string {
		m := map[string]string{"app.kubernetes.io/component": component}
		for k, v := range labels {
			m[k] = v
		}
		for k, v := range extra {
			m[k] = v
		}
		return m
	}

	cm := &corev1.ConfigMap{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: o.Namespace, Labels: withLabels("scenario", nil)},
		Immutable:  ptr(true), // a run's scenario never changes under it
	}
	if utf8.Valid(sc.Source) {
		cm.Data = map[string]string{ScenarioKey: string(sc.Source)}
	} else {
		cm.BinaryData = map[string][]byte{ScenarioKey: sc.Source}
	}

	args := []string{"run", ScenarioPath, "--shards", strconv.Itoa(o.Shards), "--run-id", o.RunID}
	out := ResultsDir
	if o.ResultsVolume != "" {
		// One directory per shard on the shared volume, named as the
		// blobs of an upload are: merge reads them the same way.
		out = fmt.Sprintf("%s/%s/shard-$(%s)-of-%d", ResultsDir, o.RunID, IndexEnv, o.Shards)
	}
	args = append(args, "--out", out)
	if o.Upload != "" {
		args = append(args, "--upload", o.Upload)
	}
	args = append(args, target.args...)
	if !o.StartAt.IsZero() {
		args = append(args, "--start-at", o.StartAt.UTC().Format(time.RFC3339))
	}
	args = append(args, "--progress", "lines")

	env := []corev1.EnvVar{{
		// Kubernetes sets it itself on an Indexed Job's pods; declared
		// here too, from the same annotation, so that $(JOB_COMPLETION_INDEX)
		// in the arguments is expanded on every version.
		Name: IndexEnv,
		ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{
			FieldPath: "metadata.annotations['batch.kubernetes.io/job-completion-index']",
		}},
	}}
	env = append(env, target.env...)
	mem := requests[corev1.ResourceMemory]
	env = append(env, corev1.EnvVar{
		// The Go runtime collects harder near the limit instead of being
		// OOM-killed; 10 % is left for what is not Go heap.
		Name: "GOMEMLIMIT", Value: fmt.Sprintf("%dMiB", mem.Value()*9/10>>20),
	})

	resultsVolume := corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}
	if o.ResultsVolume != "" {
		resultsVolume = corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: o.ResultsVolume}}
	}
	podLabels := withLabels("shard", target.podLabels)
	pod := corev1.PodSpec{
		RestartPolicy:                 corev1.RestartPolicyNever,
		ServiceAccountName:            o.ServiceAccount,
		AutomountServiceAccountToken:  ptr(false), // a shard never talks to the API server
		EnableServiceLinks:            ptr(false),
		TerminationGracePeriodSeconds: ptr(int64(GracePeriod / time.Second)),
		SecurityContext: &corev1.PodSecurityContext{
			RunAsNonRoot:   ptr(true),
			RunAsUser:      ptr(int64(NonRootUID)),
			RunAsGroup:     ptr(int64(NonRootUID)),
			FSGroup:        ptr(int64(NonRootUID)),
			SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
		},
		// Shards on different nodes: the point of sharding is more
		// machines. Preferred, not required, so a small cluster still runs.
		TopologySpreadConstraints: []corev1.TopologySpreadConstraint{{
			MaxSkew:           1,
			TopologyKey:       "kubernetes.io/hostname",
			WhenUnsatisfiable: corev1.ScheduleAnyway,
			LabelSelector:     &metav1.LabelSelector{MatchLabels: map[string]string{RunIDLabel: o.RunID}},
		}},
		Containers: []corev1.Container{{
			Name:  ContainerName,
			Image: o.Image,
			Args:  args,
			Env:   env,
			Resources: corev1.ResourceRequirements{
				Requests: requests,
				Limits:   limits,
			},
			VolumeMounts: []corev1.VolumeMount{
				{Name: "scenario", MountPath: ScenarioDir, ReadOnly: true},
				{Name: "results", MountPath: ResultsDir},
				{Name: "tmp", MountPath: TmpDir},
			},
			SecurityContext: &corev1.SecurityContext{
				RunAsNonRoot:             ptr(true),
				ReadOnlyRootFilesystem:   ptr(true),
				AllowPrivilegeEscalation: ptr(false),
				Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
			},
		}},
		Volumes: []corev1.Volume{
			{Name: "scenario", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
				LocalObjectReference: corev1.LocalObjectReference{Name: name},
				Items:                []corev1.KeyToPath{{Key: ScenarioKey, Path: ScenarioKey}},
			}}},
			{Name: "results", VolumeSource: resultsVolume},
			// Checks spill large histories to temporary files.
			{Name: "tmp", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
		},
	}
	if o.ImagePullSecret != "" {
		pod.ImagePullSecrets = []corev1.LocalObjectReference{{Name: o.ImagePullSecret}}
	}

	n := int32(o.Shards)
	job := &batchv1.Job{
		TypeMeta: metav1.TypeMeta{APIVersion: "batch/v1", Kind: "Job"},
		ObjectMeta: metav1.ObjectMeta{
			Name: name, Namespace: o.Namespace, Labels: withLabels("run", nil),
			Annotations: map[string]string{
				"stormcheck.io/shards":    strconv.Itoa(o.Shards),
				"stormcheck.io/resources": sizing.Explain(),
			},
		},
		Spec: batchv1.JobSpec{
			CompletionMode: ptr(batchv1.IndexedCompletion),
			Completions:    &n,
			Parallelism:    &n,
			// A shard is never run twice (see README, "Shards on
			// Kubernetes"): its load has reached the target and named its
			// results by its index, so a second attempt would double
			// the load, race its own first attempt's effects with a
			// history that no longer holds them, and overwrite its
			// upload. A failed shard fails its index; the others run on.
			BackoffLimitPerIndex: ptr(int32(0)),
			BackoffLimit:         ptr(n),
			PodFailurePolicy: &batchv1.PodFailurePolicy{Rules: []batchv1.PodFailurePolicyRule{
				{
					// Exit 2: the scenario or the flags were refused;
					// every shard would say the same: stop them all.
					Action: batchv1.PodFailurePolicyActionFailJob,
					OnExitCodes: &batchv1.PodFailurePolicyOnExitCodesRequirement{
						ContainerName: ptr(ContainerName),
						Operator:      batchv1.PodFailurePolicyOnExitCodesOpIn,
						Values:        []int32{2},
					},
				},
				{
					// Evicted or preempted mid-run: not rerun either.
					// (A cluster without backoffLimitPerIndex refuses
					// FailIndex, so no such cluster reruns a shard.)
					Action: batchv1.PodFailurePolicyActionFailIndex,
					OnPodConditions: []batchv1.PodFailurePolicyOnPodConditionsPattern{
						{Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue},
					},
				},
			}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{
					Labels:      podLabels,
					Annotations: map[string]string{"kubectl.kubernetes.io/default-container": ContainerName},
				},
				Spec: pod,
			},
		},
	}
	if d := deadline(o); d > 0 {
		job.Spec.ActiveDeadlineSeconds = ptr(int64(d / time.Second))
	}
	return &Manifests{ConfigMap: cm, Job: job, Sizing: sizing, Args: args}, nil
}

// target is what the pod needs to reach the scenario's target.
type target struct {
	args      []string
	env       []corev1.EnvVar
	podLabels map[string]string
}

// targetFor decides how a shard signs in: from the user's Secret (a
// connection string, or an account key) or with Entra ID workload identity.
// No secret value is ever written into the manifests.
func targetFor(o Options) (target, error) {
	t := o.Scenario.Target
	switch {
	case o.Secret != "" && o.ServiceAccount != "":
		return target{}, errors.New("--secret and --service-account both given: choose one way to sign in (a Secret with a connection string or account key, or Entra ID workload identity)")
	case o.Secret == "" && o.ServiceAccount == "":
		if t.Kind == scenarios.TargetEntraID {
			return target{}, fmt.Errorf("the scenario's target is entra-id (account %s): name the service account federated with its Entra ID identity with --service-account NAME", t.Account)
		}
		return target{}, errors.New("no credentials: name a Secret holding the connection string with --secret NAME " +
			"(kubectl create secret generic NAME --from-literal=connection-string=...), or, for a scenario whose target is entra-id, " +
			"the workload identity's service account with --service-account NAME")
	case o.ServiceAccount != "":
		if t.Kind != scenarios.TargetEntraID {
			return target{}, fmt.Errorf("--service-account signs in with Entra ID workload identity, but the scenario's target is %s: "+
				"give the scenario target: {kind: entra-id, account: NAME}, or use --secret NAME for a connection string", t.Kind)
		}
		return target{podLabels: map[string]string{WorkloadIdentityLabel: "true"}}, nil
	}
	fromSecret := func(env, defKey string) corev1.EnvVar {
		key := o.SecretKey
		if key == "" {
			key = defKey
		}
		return corev1.EnvVar{Name: env, ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{
			LocalObjectReference: corev1.LocalObjectReference{Name: o.Secret},
			Key:                  key,
		}}}
	}
	switch t.Kind {
	case scenarios.TargetEntraID:
		return target{}, fmt.Errorf("the scenario's target is entra-id (account %s), which signs in without a secret: use --service-account NAME (workload identity) instead of --secret", t.Account)
	case scenarios.TargetAccountKey:
		return target{env: []corev1.EnvVar{fromSecret(t.KeyEnv, DefaultAccountKeyKey)}}, nil
	case scenarios.TargetConnectionString:
		return target{env: []corev1.EnvVar{fromSecret(t.ConnectionStringEnv, DefaultConnectionStringKey)}}, nil
	}
	// A managed Azurite cannot run in the image (no Node.js): the shards
	// talk to the account behind the Secret's connection string.
	return target{
		args: []string{"--target", scenarios.TargetConnectionString},
		env:  []corev1.EnvVar{fromSecret(DefaultConnectionStringEnv, DefaultConnectionStringKey)},
	}, nil
}

// check validates the options that need no scenario knowledge.
func check(o Options) error {
	var errs []string
	bad := func(format string, a ...any) { errs = append(errs, fmt.Sprintf(format, a...)) }
	if o.Shards < 1 || o.Shards > MaxShards {
		bad("--shards %d: want 1 to %d shards", o.Shards, MaxShards)
	} else if most := mostActors(o.Scenario); o.Shards > most {
		bad("--shards %d: the scenario's largest workload has %d actor(s), so shards %d to %d would have nothing to run: use --shards %d at most, or more actors (--actors)",
			o.Shards, most, most, o.Shards-1, most)
	}
	if n := len(o.Scenario.Source); n > MaxScenarioBytes {
		bad("the scenario is %d bytes: a ConfigMap carries at most %d (the API server refuses objects over 1 MiB)", n, MaxScenarioBytes)
	}
	if o.Image == "" {
		bad("--image is required: the stormcheck image the shards run (build it with the repository's Dockerfile and push it to a registry the cluster can pull from)")
	} else if strings.ContainsAny(o.Image, " \t\r\n") {
		bad("--image %q: an image reference has no spaces", o.Image)
	}
	if o.RunID == "" {
		bad("no run id")
	}
	dns := func(flag, v string, subdomain bool) {
		if v == "" {
			return
		}
		var msgs []string
		if subdomain {
			msgs = validation.IsDNS1123Subdomain(v)
		} else {
			msgs = validation.IsDNS1123Label(v)
		}
		if len(msgs) > 0 {
			bad("%s %q: %s", flag, v, strings.Join(msgs, "; "))
		}
	}
	dns("--name", o.Name, false)
	dns("--namespace", o.Namespace, false)
	dns("--secret", o.Secret, true)
	dns("--service-account", o.ServiceAccount, true)
	dns("--results-volume", o.ResultsVolume, true)
	dns("--image-pull-secret", o.ImagePullSecret, true)
	if o.SecretKey != "" {
		if o.Secret == "" {
			bad("--secret-key %q without --secret: name the Secret too", o.SecretKey)
		}
		if msgs := validation.IsConfigMapKey(o.SecretKey); len(msgs) > 0 {
			bad("--secret-key %q: %s", o.SecretKey, strings.Join(msgs, "; "))
		}
	}
	if o.Upload != "" && !validContainer(o.Upload) {
		bad("--upload %q: a blob container name is 3 to 63 characters of lower-case letters, digits and single hyphens, starting and ending with a letter or digit", o.Upload)
	}
	if o.Upload == "" && o.ResultsVolume == "" {
		bad("no place for the results: --upload CONTAINER (each shard uploads its results directory to that blob container on the target account) or --results-volume CLAIM (a ReadWriteMany PersistentVolumeClaim); a pod's own disk goes with it")
	}
	if len(errs) > 0 {
		return errors.New(strings.Join(errs, "\n"))
	}
	return nil
}

// mostActors is the largest workload's peak actors: the most shards that
// each get at least one actor.
func mostActors(sc *scenarios.Scenario) int {
	most := 0
	for _, w := range sc.Workloads {
		most = max(most, peakActors(w))
	}
	return most
}

// deadline is the Job's activeDeadlineSeconds (0: none).
func deadline(o Options) time.Duration {
	if o.Deadline != 0 {
		return max(o.Deadline, 0)
	}
	load, ok := LoadPhase(o.Scenario)
	if !ok {
		return 0
	}
	d := load + DeadlineSlack
	if !o.StartAt.IsZero() && o.StartAt.After(o.Now) {
		d += o.StartAt.Sub(o.Now)
	}
	return d.Round(time.Second)
}

// DefaultName is the Job's and ConfigMap's name: stormcheck-<scenario>-<run
// id>, the scenario's name made a DNS label (lower case, '-' for '.' and
// '_', at most 30 characters of it).
func DefaultName(scenario, runID string) string {
	s := dnsPart(scenario, 30)
	if s == "" {
		return "stormcheck-" + runID
	}
	return "stormcheck-" + s + "-" + runID
}

// dnsPart turns s into lower-case letters, digits and single hyphens, at
// most n characters, starting and ending with a letter or digit.
func dnsPart(s string, n int) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			b.WriteRune(r)
		case !strings.HasSuffix(b.String(), "-") && b.Len() > 0:
			b.WriteByte('-')
		}
	}
	out := b.String()
	if len(out) > n {
		out = out[:n]
	}
	return strings.Trim(out, "-")
}

// labelValue is s as a label value (at most 63 of [A-Za-z0-9._-], letter or
// digit at both ends), or "" if nothing of it fits.
func labelValue(s string) string {
	if len(s) > 63 {
		s = s[:63]
	}
	s = strings.TrimRight(s, "._-")
	if len(content.IsLabelValue(s)) > 0 {
		return ""
	}
	return s
}

// validContainer reports whether s is a valid blob container name.
func validContainer(s string) bool {
	if len(s) < 3 || len(s) > 63 || strings.Contains(s, "--") || s[0] == '-' || s[len(s)-1] == '-' {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-') {
			return false
		}
	}
	return true
}

func parseQuantity(flag, v string) (resource.Quantity, error) {
	q, err := resource.ParseQuantity(v)
	if err != nil || q.Sign() <= 0 {
		return q, fmt.Errorf("%s %q: want a positive Kubernetes quantity, e.g. 500m or 2 (CPU), 512Mi or 2Gi (memory)", flag, v)
	}
	return q, nil
}

func ptr[T any](v T) *T { return &v }
