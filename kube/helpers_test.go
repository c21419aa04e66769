package kube

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	serjson "k8s.io/apimachinery/pkg/runtime/serializer/json"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
)

// examplePlan is a plan the pods can run: a real server, a fixed ladder, the API key
// from the environment.
const examplePlan = "testdata/chat-4-shards.yaml"

// exampleOptions are the golden example's flags: 4 shards, spread, a key Secret.
func exampleOptions() Options {
	o := Defaults()
	o.Plan = examplePlan
	o.Shards = 4
	o.Image = "registry.example.com/llmcap:v1"
	o.Namespace = "bench"
	o.Spread = true
	o.APIKeySecret = "llm-api/key"
	return o
}

// generate returns Generate's YAML for the example options changed by edit (nil: none).
func generate(t *testing.T, edit func(*Options)) []byte {
	t.Helper()
	o := exampleOptions()
	if edit != nil {
		edit(&o)
	}
	out, err := Generate(o)
	if err != nil {
		t.Fatalf("Generate: %v", err)
	}
	return out
}

// strictDecoder decodes YAML into the core and batch types, refusing unknown and
// duplicate fields.
func strictDecoder(t *testing.T) runtime.Decoder {
	t.Helper()
	scheme := runtime.NewScheme()
	if err := corev1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	if err := batchv1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	return serjson.NewSerializerWithOptions(serjson.DefaultMetaFactory, scheme, scheme,
		serjson.SerializerOptions{Yaml: true, Strict: true})
}

// documents splits multi-document YAML at its "---" lines.
func documents(t *testing.T, y []byte) [][]byte {
	t.Helper()
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(y)))
	var docs [][]byte
	for {
		d, err := r.Read()
		if errors.Is(err, io.EOF) {
			return docs
		}
		if err != nil {
			t.Fatalf("split the YAML: %v", err)
		}
		docs = append(docs, d)
	}
}

// decoded are a manifest's objects as a cluster would read them.
type decoded struct {
	cm       *corev1.ConfigMap
	pvc      *corev1.PersistentVolumeClaim
	svc      *corev1.Service
	job, mrg *batchv1.Job
}

// decodeManifest decodes y strictly into its five objects, in order.
func decodeManifest(t *testing.T, y []byte) decoded {
	t.Helper()
	docs := documents(t, y)
	if len(docs) != 5 {
		t.Fatalf("%d documents, want 5 (ConfigMap, PVC, Service, Job, merge Job)", len(docs))
	}
	dec := strictDecoder(t)
	objs := make([]runtime.Object, len(docs))
	for i, d := range docs {
		obj, _, err := dec.Decode(d, nil, nil)
		if err != nil {
			t.Fatalf("document %d does not decode strictly: %v\n%s", i, err, d)
		}
		objs[i] = obj
	}
	var m decoded
	var ok [5]bool
	m.cm, ok[0] = objs[0].(*corev1.ConfigMap)
	m.pvc, ok[1] = objs[1].(*corev1.PersistentVolumeClaim)
	m.svc, ok[2] = objs[2].(*corev1.Service)
	m.job, ok[3] = objs[3].(*batchv1.Job)
	m.mrg, ok[4] = objs[4].(*batchv1.Job)
	for i, good := range ok {
		if !good {
			t.Fatalf("document %d is a %T, not the expected type", i, objs[i])
		}
	}
	return m
}
