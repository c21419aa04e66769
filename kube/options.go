// Package kube writes the Kubernetes objects of a sharded sweep (llmcap k8s
// manifest, docs/distributed.md): a ConfigMap holding the plan, a ReadWriteMany
// PersistentVolumeClaim shared by every pod, a headless Service for shard 0's
// rendezvous, an Indexed Job of N shard pods (llmcap sweep --shards N) and a merge Job
// (llmcap merge). The objects are the real client types (k8s.io/api), rendered as
// multi-document YAML by sigs.k8s.io/yaml, byte for byte the same for the same input.
//
// It reads the plan file (plan.Load) and refuses a plan the pods could not run: one
// that needs files besides plan.yaml, the embedded simulator, a capacity search, …
// (plan_check.go). It talks to no cluster.
package kube

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation"
)

// Limits and defaults of Options.
const (
	// MaxShards bounds Options.Shards (as sweep.MaxShards).
	MaxShards = 1000
	// MaxNameLen bounds Options.Name: NAME-merge, the merge Job, must be a DNS label
	// (63 characters), and so must a shard pod's hostname NAME-999.
	MaxNameLen = 63 - len("-merge")
	// DefaultPort is the rendezvous port shard 0 listens on.
	DefaultPort = 7070
	// DefaultStorage is the size of the shared runs volume.
	DefaultStorage = "10Gi"
	// DefaultCPU and DefaultMemory are each pod's requests (memory also its limit).
	DefaultCPU    = "2"
	DefaultMemory = "4Gi"
	// DefaultMergeWait is how long the merge pod waits for every shard to finish.
	DefaultMergeWait = 2 * time.Hour
	// APIKeyEnv is the variable the docs suggest for the API key (target.api_key_env).
	APIKeyEnv = "LLMCAP_API_KEY"
)

// Options are the flags of llmcap k8s manifest.
type Options struct {
	// Plan is the plan file's path (-c); its bytes become the ConfigMap's plan.yaml.
	Plan string
	// Shards is the number of shard pods, 1 to MaxShards (--shards).
	Shards int
	// Image is the container image holding /usr/local/bin/llmcap (--image; required).
	Image string
	// Name names every object (--name; "" → DefaultName of the plan's name): a DNS-1035
	// label of at most MaxNameLen characters.
	Name string
	// Namespace is every object's namespace (--namespace; "" → none: kubectl's
	// current one).
	Namespace string
	// Spread adds a required pod anti-affinity on kubernetes.io/hostname: at most one
	// shard pod per node (--spread).
	Spread bool
	// StorageClass is the runs volume's storageClassName (--storage-class; "" → the
	// cluster's default); it must offer ReadWriteMany.
	StorageClass string
	// Storage is the runs volume's size, a Kubernetes quantity such as "10Gi" (--storage).
	Storage string
	// Port is shard 0's rendezvous TCP port, 1 to 65535 (--port).
	Port int
	// APIKeySecret is "SECRET/KEY": a Secret in the namespace whose key KEY holds the
	// server's API key, given to every shard pod in the variable the plan's
	// target.api_key_env names (--api-key-secret; "" → no key).
	APIKeySecret string
	// CPU and Memory are each pod's resource requests as Kubernetes quantities ("2",
	// "500m", "4Gi"); Memory is also the memory limit. There is no CPU limit: CFS
	// throttling of the load generator would show up as server latency. "" leaves
	// one out (--cpu, --memory).
	CPU, Memory string
	// MergeWait is how long the merge pod waits for the shards (--merge-wait; > 0).
	MergeWait time.Duration
}

// Defaults returns Options with every default filled in and nothing else.
func Defaults() Options {
	return Options{Storage: DefaultStorage, Port: DefaultPort, CPU: DefaultCPU, Memory: DefaultMemory, MergeWait: DefaultMergeWait}
}

// Check returns nil or every problem with the flags at once (errors.Join), each
// naming its flag, the value and what is allowed. It does not read the plan, so an
// empty Name is allowed (Generate derives it).
func (o Options) Check() error {
	var errs []error
	add := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }
	if o.Plan == "" {
		add("-c PLAN is required: the plan file the shards run")
	}
	if o.Shards < 1 || o.Shards > MaxShards {
		add("--shards %d: must be 1 to %d", o.Shards, MaxShards)
	}
	if o.Image == "" || strings.ContainsAny(o.Image, " \t\n") {
		add("--image %q: required, an image reference such as registry.example.com/llmcap:v1 (build it from the Dockerfile)", o.Image)
	}
	if o.Name != "" {
		errs = append(errs, checkName(o.Name, "--name"))
	}
	errs = append(errs, checkDNS("--namespace", o.Namespace, validation.IsDNS1123Label),
		checkDNS("--storage-class", o.StorageClass, validation.IsDNS1123Subdomain),
		checkQuantity("--storage", o.Storage, true), checkQuantity("--cpu", o.CPU, false),
		checkQuantity("--memory", o.Memory, false), checkSecret(o.APIKeySecret))
	if msgs := validation.IsValidPortNum(o.Port); len(msgs) > 0 {
		add("--port %d: %s", o.Port, strings.Join(msgs, "; "))
	}
	if o.MergeWait <= 0 {
		add("--merge-wait %v: must be > 0, e.g. 2h (how long the merge pod waits for the shards)", o.MergeWait)
	}
	return errors.Join(errs...)
}

// checkDNS checks an optional name with one of apimachinery's validators.
func checkDNS(flag, v string, valid func(string) []string) error {
	if v == "" {
		return nil
	}
	if msgs := valid(v); len(msgs) > 0 {
		return fmt.Errorf("%s %q: %s", flag, v, strings.Join(msgs, "; "))
	}
	return nil
}

// checkQuantity checks a Kubernetes quantity (> 0); required says "" is refused.
func checkQuantity(flag, v string, required bool) error {
	if v == "" && !required {
		return nil
	}
	q, err := resource.ParseQuantity(v)
	if err != nil || q.Sign() <= 0 {
		return fmt.Errorf("%s %q: must be a positive Kubernetes quantity, e.g. 10Gi, 4Gi, 2 or 500m", flag, v)
	}
	return nil
}

// checkSecret checks --api-key-secret SECRET/KEY.
func checkSecret(v string) error {
	if v == "" {
		return nil
	}
	name, key, ok := strings.Cut(v, "/")
	bad := append(validation.IsDNS1123Subdomain(name), validation.IsConfigMapKey(key)...)
	if !ok || len(bad) > 0 {
		return fmt.Errorf("--api-key-secret %q: want SECRET/KEY, a Secret's name and the key holding the API key, "+
			"e.g. llm-api/key (kubectl create secret generic llm-api --from-literal=key=…)", v)
	}
	return nil
}
