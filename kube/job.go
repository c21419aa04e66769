package kube

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Pod settings of both Jobs.
const (
	// retriesPerIndex is how often a failed shard pod is replaced; the replacement
	// finds its run directory and resumes it.
	retriesPerIndex = 2
	// gracePeriod lets llmcap write the records it completed after SIGTERM.
	gracePeriod = 60
	// nonroot is the uid and gid of distroless's nonroot user, the Dockerfile's.
	nonroot = 65532
)

// ShardArgs are shard pods' llmcap arguments: sweep the plan as shard
// $JOB_COMPLETION_INDEX of o.Shards (--shards), meeting at shard 0's rendezvous
// (Rendezvous), into RunsDir/shard-INDEX.
func ShardArgs(o Options) []string {
	return []string{"sweep", "-c", PlanDir + "/" + PlanKey, "--shards", strconv.Itoa(o.Shards),
		"--rendezvous", Rendezvous(o), "-o", RunsDir + "/shard-$(" + indexEnv + ")"}
}

// Rendezvous is shard 0's host:port: its pod's hostname NAME-0 under the headless
// Service NAME.
func Rendezvous(o Options) string {
	return fmt.Sprintf("%s-0.%s:%d", o.Name, o.Name, o.Port)
}

// MergeArgs are the merge pod's llmcap arguments: wait up to o.MergeWait for every
// shard directory, then merge them into MergedDir.
func MergeArgs(o Options) []string {
	args := []string{"merge", "--wait", formatWait(o.MergeWait)}
	for i := range o.Shards {
		args = append(args, fmt.Sprintf("%s/shard-%d", RunsDir, i))
	}
	return append(args, "-o", MergedDir)
}

// formatWait writes d as Go's duration without zero units ("2h", "90m", "1h30m").
func formatWait(d time.Duration) string {
	s := d.String()
	for _, zero := range []string{"m0s", "h0m"} {
		if len(s) > len(zero) && s[len(s)-len(zero):] == zero {
			s = s[:len(s)-len(zero)+1]
		}
	}
	return s
}

// shardJob is the Indexed Job of o.Shards pods, each one shard. A failed index is
// retried retriesPerIndex times, a replacement only once the old pod is gone (so two
// pods never write one shard's directory), and the Job fails at the first index that
// runs out of retries (a merged run without a shard would be wrong).
func shardJob(o Options, keyEnv string) *batchv1.Job {
	n := int32(o.Shards)
	spec := podSpec(o, shardContainer(o, keyEnv))
	spec.Subdomain = o.Name
	if o.Spread {
		spec.Affinity = spreadAffinity(o)
	}
	return &batchv1.Job{
		TypeMeta:   metav1.TypeMeta{APIVersion: "batch/v1", Kind: "Job"},
		ObjectMeta: meta(o, o.Name, ComponentShard),
		Spec: batchv1.JobSpec{
			CompletionMode:       ptr(batchv1.IndexedCompletion),
			Completions:          &n,
			Parallelism:          &n,
			BackoffLimitPerIndex: ptr(int32(retriesPerIndex)),
			MaxFailedIndexes:     ptr(int32(0)),
			PodReplacementPolicy: ptr(batchv1.Failed),
			Template:             podTemplate(o, ComponentShard, spec),
		},
	}
}

// mergeJob is the one-pod Job that merges the shards into MergedDir.
func mergeJob(o Options) *batchv1.Job {
	c := container(o, MergeArgs(o))
	c.VolumeMounts = []corev1.VolumeMount{{Name: "runs", MountPath: RunsDir}}
	spec := podSpec(o, c)
	spec.Volumes = spec.Volumes[1:] // the runs volume only
	return &batchv1.Job{
		TypeMeta:   metav1.TypeMeta{APIVersion: "batch/v1", Kind: "Job"},
		ObjectMeta: meta(o, o.Name+"-merge", ComponentMerge),
		Spec: batchv1.JobSpec{
			Completions:  ptr(int32(1)),
			Parallelism:  ptr(int32(1)),
			BackoffLimit: ptr(int32(retriesPerIndex)),
			Template:     podTemplate(o, ComponentMerge, spec),
		},
	}
}

// podTemplate labels spec's pods as component.
func podTemplate(o Options, component string, spec corev1.PodSpec) corev1.PodTemplateSpec {
	return corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels(o.Name, component)}, Spec: spec}
}

// podSpec runs c once (restartPolicy Never: the Job replaces a failed pod) as
// distroless's nonroot user, with the plan and runs volumes.
func podSpec(o Options, c corev1.Container) corev1.PodSpec {
	return corev1.PodSpec{
		RestartPolicy:                 corev1.RestartPolicyNever,
		TerminationGracePeriodSeconds: ptr(int64(gracePeriod)),
		SecurityContext: &corev1.PodSecurityContext{
			RunAsNonRoot: ptr(true), RunAsUser: ptr(int64(nonroot)), RunAsGroup: ptr(int64(nonroot)),
			FSGroup:        ptr(int64(nonroot)),
			SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
		},
		Containers: []corev1.Container{c},
		Volumes: []corev1.Volume{
			{Name: "plan", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
				LocalObjectReference: corev1.LocalObjectReference{Name: o.Name + "-plan"}}}},
			{Name: "runs", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{
				ClaimName: o.Name + "-runs"}}},
		},
	}
}

// shardContainer runs ShardArgs with the index variable declared (so $(…) in the
// arguments expands), the rendezvous port, both volumes and, with keyEnv, the API
// key from --api-key-secret.
func shardContainer(o Options, keyEnv string) corev1.Container {
	c := container(o, ShardArgs(o))
	c.Env = []corev1.EnvVar{{Name: indexEnv, ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{
		FieldPath: "metadata.annotations['batch.kubernetes.io/job-completion-index']"}}}}
	if keyEnv != "" {
		secret, key := splitSecret(o.APIKeySecret)
		c.Env = append(c.Env, corev1.EnvVar{Name: keyEnv, ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{
			LocalObjectReference: corev1.LocalObjectReference{Name: secret}, Key: key}}})
	}
	c.Ports = []corev1.ContainerPort{{Name: portName, ContainerPort: int32(o.Port), Protocol: corev1.ProtocolTCP}}
	c.VolumeMounts = []corev1.VolumeMount{
		{Name: "plan", MountPath: PlanDir, ReadOnly: true},
		{Name: "runs", MountPath: RunsDir},
	}
	return c
}

// container is llmcap with args, o's resources and no privileges.
func container(o Options, args []string) corev1.Container {
	return corev1.Container{
		Name:      "llmcap",
		Image:     o.Image,
		Command:   []string{Binary},
		Args:      args,
		Resources: resources(o),
		SecurityContext: &corev1.SecurityContext{
			AllowPrivilegeEscalation: ptr(false),
			Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
		},
	}
}

// resources requests o.CPU and o.Memory and limits the memory; no CPU limit, whose
// throttling would delay the client's reads and show as server latency.
func resources(o Options) corev1.ResourceRequirements {
	var r corev1.ResourceRequirements
	if o.CPU != "" {
		r.Requests = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(o.CPU)}
	}
	if o.Memory != "" {
		if r.Requests == nil {
			r.Requests = corev1.ResourceList{}
		}
		mem := resource.MustParse(o.Memory)
		r.Requests[corev1.ResourceMemory] = mem
		r.Limits = corev1.ResourceList{corev1.ResourceMemory: mem}
	}
	return r
}

// spreadAffinity keeps two shard pods of this instance off one node.
func spreadAffinity(o Options) *corev1.Affinity {
	return &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
			LabelSelector: &metav1.LabelSelector{MatchLabels: labels(o.Name, ComponentShard)},
			TopologyKey:   corev1.LabelHostname,
		}},
	}}
}

// splitSecret splits --api-key-secret SECRET/KEY (checked by Options.Check).
func splitSecret(v string) (secret, key string) {
	secret, key, _ = strings.Cut(v, "/")
	return secret, key
}

func ptr[T any](v T) *T { return &v }
