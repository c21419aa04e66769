package kube

import (
	"fmt"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Mount points and names inside the pods.
const (
	// PlanKey is the ConfigMap's key holding the plan file, mounted at PlanDir.
	PlanKey = "plan.yaml"
	PlanDir = "/plan"
	// RunsDir is the shared volume's mount point: shard I writes RunsDir/shard-I, the
	// merge RunsDir/merged.
	RunsDir = "/runs"
	// MergedDir is the merged run directory.
	MergedDir = RunsDir + "/merged"
	// Binary is the container command: /usr/local/bin/llmcap in the Dockerfile's image.
	Binary = "llmcap"
	// portName names the rendezvous port on the container and the Service.
	portName = "rendezvous"
	// indexEnv is the variable an Indexed Job gives each pod's index in.
	indexEnv = "JOB_COMPLETION_INDEX"
)

// Components (app.kubernetes.io/component) of the objects.
const (
	ComponentPlan  = "plan"
	ComponentRuns  = "runs"
	ComponentShard = "shard"
	ComponentMerge = "merge"
)

// Manifest is the objects of one sharded sweep, in the order they are applied, and
// the name of the plan they run (for YAML's header).
type Manifest struct {
	PlanName  string
	ConfigMap *corev1.ConfigMap
	PVC       *corev1.PersistentVolumeClaim
	Service   *corev1.Service
	Job       *batchv1.Job
	MergeJob  *batchv1.Job
}

// Generate loads and checks the plan of o (LoadPlan) and returns its manifest as
// YAML (Manifest.YAML). o must pass Check; errors: Check's, LoadPlan's, or a name
// derived from the plan that is not valid.
func Generate(o Options) ([]byte, error) {
	if err := o.Check(); err != nil {
		return nil, err
	}
	p, err := LoadPlan(o.Plan)
	if err != nil {
		return nil, err
	}
	m, err := Build(o, p)
	if err != nil {
		return nil, err
	}
	return m.YAML()
}

// Build makes the objects for plan p with options o (which must pass Check). An
// empty o.Name becomes DefaultName(p.Plan.Name). Errors: a bad name, and
// --api-key-secret given without target.api_key_env in the plan or the reverse.
func Build(o Options, p *Plan) (*Manifest, error) {
	if o.Name == "" {
		o.Name = DefaultName(p.Plan.Name)
		if err := checkName(o.Name, "the name derived from the plan's name field (give --name)"); err != nil {
			return nil, err
		}
	}
	if err := checkAPIKey(o.APIKeySecret, p); err != nil {
		return nil, err
	}
	return &Manifest{
		PlanName:  p.Plan.Name,
		ConfigMap: configMap(o, p.Bytes),
		PVC:       pvc(o),
		Service:   service(o),
		Job:       shardJob(o, p.APIKeyEnv),
		MergeJob:  mergeJob(o),
	}, nil
}

// checkAPIKey requires --api-key-secret exactly when the plan reads a key from
// target.api_key_env.
func checkAPIKey(secret string, p *Plan) error {
	switch {
	case secret != "" && p.APIKeyEnv == "":
		return fmt.Errorf("--api-key-secret %s: the plan %s reads no key from the environment: add target.api_key_env: %s to it",
			secret, p.Path, APIKeyEnv)
	case secret == "" && p.APIKeyEnv != "":
		return fmt.Errorf("target.api_key_env %s: the plan reads the API key from this variable, which the pods would not have: give --api-key-secret SECRET/KEY, "+
			"a Secret holding the key (kubectl create secret generic llm-api --from-literal=key=…)", p.APIKeyEnv)
	}
	return nil
}

// meta is an object's metadata: its name, the namespace and the labels of component.
func meta(o Options, name, component string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Name: name, Namespace: o.Namespace, Labels: labels(o.Name, component)}
}

// labels are the app.kubernetes.io labels of one component of instance name.
func labels(name, component string) map[string]string {
	return map[string]string{
		"app.kubernetes.io/name":      "llmcap",
		"app.kubernetes.io/instance":  name,
		"app.kubernetes.io/component": component,
	}
}

// configMap holds the plan file's exact bytes under PlanKey.
func configMap(o Options, planYAML []byte) *corev1.ConfigMap {
	return &corev1.ConfigMap{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: meta(o, o.Name+"-plan", ComponentPlan),
		Data:       map[string]string{PlanKey: string(planYAML)},
	}
}

// pvc is the ReadWriteMany volume every pod mounts at RunsDir.
func pvc(o Options) *corev1.PersistentVolumeClaim {
	c := &corev1.PersistentVolumeClaim{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "PersistentVolumeClaim"},
		ObjectMeta: meta(o, o.Name+"-runs", ComponentRuns),
		Spec: corev1.PersistentVolumeClaimSpec{
			AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteMany},
			Resources: corev1.VolumeResourceRequirements{
				Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse(o.Storage)},
			},
		},
	}
	if o.StorageClass != "" {
		c.Spec.StorageClassName = &o.StorageClass
	}
	return c
}

// service is the headless Service that gives shard pod I the DNS name NAME-I.NAME,
// published before the pod is ready so the other shards find shard 0 at once.
func service(o Options) *corev1.Service {
	return &corev1.Service{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Service"},
		ObjectMeta: meta(o, o.Name, ComponentShard),
		Spec: corev1.ServiceSpec{
			ClusterIP:                corev1.ClusterIPNone,
			Selector:                 labels(o.Name, ComponentShard),
			PublishNotReadyAddresses: true,
			Ports: []corev1.ServicePort{{
				Name: portName, Protocol: corev1.ProtocolTCP, Port: int32(o.Port), TargetPort: intstr.FromString(portName),
			}},
		},
	}
}
