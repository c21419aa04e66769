package kube

import (
	"os"
	"slices"
	"strconv"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
)

// TestShardJobRunsNIndexedPods: completions = parallelism = N, Indexed, the sweep's
// arguments carry --shards N and shard 0's address, and the merge lists N directories.
func TestShardJobRunsNIndexedPods(t *testing.T) {
	for _, n := range []int{1, 3, 16} {
		t.Run(strconv.Itoa(n), func(t *testing.T) {
			m := decodeManifest(t, generate(t, func(o *Options) { o.Shards = n }))
			s := m.job.Spec
			if *s.Completions != int32(n) || *s.Parallelism != int32(n) {
				t.Errorf("completions %d, parallelism %d, want both %d", *s.Completions, *s.Parallelism, n)
			}
			if s.CompletionMode == nil || *s.CompletionMode != batchv1.IndexedCompletion {
				t.Errorf("completionMode %v, want Indexed", s.CompletionMode)
			}
			args := m.job.Spec.Template.Spec.Containers[0].Args
			if i := slices.Index(args, "--shards"); i < 0 || args[i+1] != strconv.Itoa(n) {
				t.Errorf("shard args %q: want --shards %d", args, n)
			}
			if i := slices.Index(args, "--rendezvous"); i < 0 || args[i+1] != "llmcap-chat-70b-0.llmcap-chat-70b:7070" {
				t.Errorf("shard args %q: want --rendezvous llmcap-chat-70b-0.llmcap-chat-70b:7070", args)
			}
			if i := slices.Index(args, "-o"); i < 0 || args[i+1] != "/runs/shard-$(JOB_COMPLETION_INDEX)" {
				t.Errorf("shard args %q: want -o /runs/shard-$(JOB_COMPLETION_INDEX)", args)
			}
			want := []string{"merge", "--wait", "2h"}
			for i := range n {
				want = append(want, "/runs/shard-"+strconv.Itoa(i))
			}
			want = append(want, "-o", "/runs/merged")
			if got := m.mrg.Spec.Template.Spec.Containers[0].Args; !slices.Equal(got, want) {
				t.Errorf("merge args %q, want %q", got, want)
			}
		})
	}
}

// TestShardPodIsAddressableAndResumable: the pods' hostnames sit under the headless
// Service, the index variable is declared for $(…) in the arguments, a failed index
// is replaced only once its pod is gone, and SIGTERM gets 60 s.
func TestShardPodIsAddressableAndResumable(t *testing.T) {
	m := decodeManifest(t, generate(t, nil))
	pod := m.job.Spec.Template.Spec
	if pod.Subdomain != m.svc.Name || m.svc.Spec.ClusterIP != corev1.ClusterIPNone {
		t.Errorf("subdomain %q, Service %q clusterIP %q: want the headless Service's name", pod.Subdomain, m.svc.Name, m.svc.Spec.ClusterIP)
	}
	if !labelsMatch(m.svc.Spec.Selector, m.job.Spec.Template.Labels) {
		t.Errorf("Service selector %v does not select the shard pods %v", m.svc.Spec.Selector, m.job.Spec.Template.Labels)
	}
	if p := m.svc.Spec.Ports; len(p) != 1 || p[0].Name != "rendezvous" || p[0].Port != 7070 {
		t.Errorf("Service ports %+v, want rendezvous 7070", p)
	}
	c := pod.Containers[0]
	if len(c.Env) == 0 || c.Env[0].Name != "JOB_COMPLETION_INDEX" || c.Env[0].ValueFrom.FieldRef == nil ||
		c.Env[0].ValueFrom.FieldRef.FieldPath != "metadata.annotations['batch.kubernetes.io/job-completion-index']" {
		t.Errorf("env %+v: want JOB_COMPLETION_INDEX first, from the completion-index annotation", c.Env)
	}
	if *m.job.Spec.BackoffLimitPerIndex != 2 || *m.job.Spec.PodReplacementPolicy != batchv1.Failed || pod.RestartPolicy != corev1.RestartPolicyNever {
		t.Errorf("backoffLimitPerIndex %d, podReplacementPolicy %s, restartPolicy %s: want 2, Failed, Never",
			*m.job.Spec.BackoffLimitPerIndex, *m.job.Spec.PodReplacementPolicy, pod.RestartPolicy)
	}
	if *pod.TerminationGracePeriodSeconds != 60 {
		t.Errorf("terminationGracePeriodSeconds %d, want 60", *pod.TerminationGracePeriodSeconds)
	}
	if c.Command[0] != "llmcap" || len(c.Ports) != 1 || c.Ports[0].ContainerPort != 7070 {
		t.Errorf("command %q ports %+v: want llmcap listening on 7070", c.Command, c.Ports)
	}
}

// TestSpreadAddsAntiAffinityOnlyWhenAsked: --spread gives a required anti-affinity
// over the shard pods per node; without it there is none.
func TestSpreadAddsAntiAffinityOnlyWhenAsked(t *testing.T) {
	m := decodeManifest(t, generate(t, nil))
	a := m.job.Spec.Template.Spec.Affinity
	if a == nil || a.PodAntiAffinity == nil || len(a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution) != 1 {
		t.Fatalf("--spread: affinity %+v, want one required anti-affinity term", a)
	}
	term := a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution[0]
	if term.TopologyKey != "kubernetes.io/hostname" || !labelsMatch(term.LabelSelector.MatchLabels, m.job.Spec.Template.Labels) {
		t.Errorf("--spread: term %+v, want the shard pods on kubernetes.io/hostname", term)
	}
	if m.mrg.Spec.Template.Spec.Affinity != nil {
		t.Errorf("the merge pod has an affinity: %+v", m.mrg.Spec.Template.Spec.Affinity)
	}
	plain := decodeManifest(t, generate(t, func(o *Options) { o.Spread = false }))
	if a := plain.job.Spec.Template.Spec.Affinity; a != nil {
		t.Errorf("without --spread: affinity %+v, want none", a)
	}
}

// TestConfigMapHoldsThePlanBytes: plan.yaml is the file, byte for byte, and the shard
// pods mount it read-only at /plan beside the shared volume at /runs.
func TestConfigMapHoldsThePlanBytes(t *testing.T) {
	want, err := os.ReadFile(examplePlan)
	if err != nil {
		t.Fatal(err)
	}
	m := decodeManifest(t, generate(t, nil))
	if got := m.cm.Data["plan.yaml"]; got != string(want) {
		t.Errorf("ConfigMap plan.yaml differs from %s:\n%q\nwant\n%q", examplePlan, got, want)
	}
	pod := m.job.Spec.Template.Spec
	mounts := pod.Containers[0].VolumeMounts
	if len(mounts) != 2 || mounts[0].MountPath != "/plan" || !mounts[0].ReadOnly || mounts[1].MountPath != "/runs" {
		t.Errorf("shard mounts %+v, want /plan read-only and /runs", mounts)
	}
	if pod.Volumes[0].ConfigMap.Name != m.cm.Name || pod.Volumes[1].PersistentVolumeClaim.ClaimName != m.pvc.Name {
		t.Errorf("shard volumes %+v, want the ConfigMap %s and the claim %s", pod.Volumes, m.cm.Name, m.pvc.Name)
	}
	mv := m.mrg.Spec.Template.Spec.Volumes
	if len(mv) != 1 || mv[0].PersistentVolumeClaim.ClaimName != m.pvc.Name {
		t.Errorf("merge volumes %+v, want the claim %s only", mv, m.pvc.Name)
	}
}

// TestVolumeKeyAndResources: the claim is ReadWriteMany of --storage in
// --storage-class; the key comes from the Secret; memory is limited, CPU is not.
func TestVolumeKeyAndResources(t *testing.T) {
	m := decodeManifest(t, generate(t, func(o *Options) { o.StorageClass, o.Storage = "nfs-client", "50Gi" }))
	s := m.pvc.Spec
	if !slices.Equal(s.AccessModes, []corev1.PersistentVolumeAccessMode{corev1.ReadWriteMany}) ||
		s.Resources.Requests.Storage().String() != "50Gi" || s.StorageClassName == nil || *s.StorageClassName != "nfs-client" {
		t.Errorf("claim spec %+v: want ReadWriteMany, 50Gi, nfs-client", s)
	}
	c := m.job.Spec.Template.Spec.Containers[0]
	key := c.Env[1]
	if key.Name != "LLMCAP_API_KEY" || key.ValueFrom.SecretKeyRef.Name != "llm-api" || key.ValueFrom.SecretKeyRef.Key != "key" {
		t.Errorf("key env %+v, want LLMCAP_API_KEY from llm-api/key", key)
	}
	r := c.Resources
	if r.Requests.Cpu().String() != "2" || r.Requests.Memory().String() != "4Gi" || r.Limits.Memory().String() != "4Gi" || !r.Limits.Cpu().IsZero() {
		t.Errorf("resources %+v: want requests cpu 2 memory 4Gi, limit memory 4Gi, no CPU limit", r)
	}
}

// TestLabelsAndNamespace: every object carries the instance's labels and its
// component, and the namespace only when --namespace is given.
func TestLabelsAndNamespace(t *testing.T) {
	for _, ns := range []string{"bench", ""} {
		m := decodeManifest(t, generate(t, func(o *Options) { o.Namespace = ns }))
		for comp, meta := range map[string]struct {
			labels map[string]string
			ns     string
		}{
			"plan": {m.cm.Labels, m.cm.Namespace}, "runs": {m.pvc.Labels, m.pvc.Namespace},
			"shard": {m.job.Labels, m.job.Namespace}, "merge": {m.mrg.Labels, m.mrg.Namespace},
		} {
			want := map[string]string{"app.kubernetes.io/name": "llmcap", "app.kubernetes.io/instance": "llmcap-chat-70b",
				"app.kubernetes.io/component": comp}
			if !labelsMatch(want, meta.labels) || len(meta.labels) != 3 {
				t.Errorf("%s labels %v, want %v", comp, meta.labels, want)
			}
			if meta.ns != ns {
				t.Errorf("%s namespace %q, want %q", comp, meta.ns, ns)
			}
		}
	}
}

// labelsMatch reports whether every label of sel is in labels.
func labelsMatch(sel, labels map[string]string) bool {
	for k, v := range sel {
		if labels[k] != v {
			return false
		}
	}
	return len(sel) > 0
}
