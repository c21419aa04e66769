package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/llmcap/llmcap/kube"
)

func newK8sCmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "k8s",
		Short: "Kubernetes helpers: write the manifest of a sharded sweep",
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.AddCommand(newK8sManifestCmd(g))
	return cmd
}

// newK8sManifestCmd is `llmcap k8s manifest -c PLAN --shards N --image IMAGE`.
func newK8sManifestCmd(g *globals) *cobra.Command {
	o := kube.Defaults()
	cmd := &cobra.Command{
		Use:   "manifest -c PLAN --shards N --image IMAGE",
		Short: "Print the Kubernetes objects that run a plan as N shards and merge them (kubectl apply -f -)",
		Long: `manifest prints, as multi-document YAML on stdout, the objects that run the plan as a
sharded sweep on a Kubernetes cluster (docs/distributed.md):

  ConfigMap NAME-plan              the plan file, byte for byte, at /plan/plan.yaml
  PersistentVolumeClaim NAME-runs  a ReadWriteMany volume at /runs in every pod
  Service NAME                     headless: shard 0 is NAME-0.NAME, the rendezvous
  Job NAME                         Indexed, N pods: llmcap sweep --shards N into /runs/shard-I
  Job NAME-merge                   llmcap merge of every /runs/shard-I into /runs/merged

It talks to no cluster. The plan must give a name and run against one shared server
(target.url, not the embedded simulator, no target.launch), with a fixed ladder (no
ladder.search), no drift probe or capture, and name no other file (traces, empirical
distributions, api_key_file, catalog, drift prompts): the pods see only plan.yaml.
For an API key, create a Secret, give --api-key-secret SECRET/KEY and set
target.api_key_env: ` + kube.APIKeyEnv + ` in the plan (the key need not be set here).
The image is built from the repository's Dockerfile (llmcap at /usr/local/bin); the
Jobs need Kubernetes 1.29 or later (backoffLimitPerIndex, podReplacementPolicy).`,
		Example: "  llmcap k8s manifest -c plan.yaml --shards 4 --image registry.example.com/llmcap:v1 --spread > llmcap.yaml\n" +
			"  kubectl apply -f llmcap.yaml",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.Plan = g.v.GetString("config")
			if err := k8sManifestUsage(g, o); err != nil {
				return usageErr(err)
			}
			out, err := kube.Generate(o)
			if err != nil {
				return fmt.Errorf("k8s manifest: %w", err)
			}
			_, err = cmd.OutOrStdout().Write(out)
			return err
		},
	}
	f := cmd.Flags()
	f.IntVar(&o.Shards, "shards", 0, fmt.Sprintf("number of shard pods, 1 to %d (each drives 1/N of every step's load)", kube.MaxShards))
	f.StringVar(&o.Image, "image", "", "container image with llmcap at /usr/local/bin/llmcap, built from the Dockerfile (required)")
	f.StringVar(&o.Name, "name", "", fmt.Sprintf("name of every object, a DNS label of at most %d characters (default llmcap- and the plan's name)", kube.MaxNameLen))
	f.StringVar(&o.Namespace, "namespace", "", "namespace of every object (default: kubectl's current one)")
	f.BoolVar(&o.Spread, "spread", false, "at most one shard pod per node (a required pod anti-affinity on kubernetes.io/hostname)")
	f.StringVar(&o.StorageClass, "storage-class", "", "storage class of the runs volume, one offering ReadWriteMany (default: the cluster's default)")
	f.StringVar(&o.Storage, "storage", o.Storage, "size of the runs volume (a Kubernetes quantity)")
	f.IntVar(&o.Port, "port", o.Port, "TCP port of shard 0's rendezvous")
	f.StringVar(&o.APIKeySecret, "api-key-secret", "", "SECRET/KEY: a Secret whose key holds the API key, given to the shards in the variable "+
		"the plan's target.api_key_env names (use "+kube.APIKeyEnv+")")
	f.StringVar(&o.CPU, "cpu", o.CPU, "CPU request of each pod (no CPU limit: throttling would show as latency; '' for none)")
	f.StringVar(&o.Memory, "memory", o.Memory, "memory request and limit of each pod ('' for none)")
	f.DurationVar(&o.MergeWait, "merge-wait", o.MergeWait, "how long the merge pod waits for every shard to finish (llmcap merge --wait)")
	return cmd
}

// k8sManifestUsage refuses the global flags manifest cannot honour and checks its own.
func k8sManifestUsage(g *globals, o kube.Options) error {
	var errs []error
	if out := g.v.GetString("out"); out != "" {
		errs = append(errs, fmt.Errorf("-o %s: k8s manifest prints to stdout (redirect it: > llmcap.yaml); the runs go to the volume", out))
	}
	if len(g.set) > 0 {
		errs = append(errs, fmt.Errorf("--set %s: the pods read the plan file as it is: write the change into it", g.set[0]))
	}
	if err := o.Check(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}
