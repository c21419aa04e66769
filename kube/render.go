package kube

import (
	"bytes"
	"encoding/json"
	"fmt"

	"sigs.k8s.io/yaml"
)

// header opens the YAML: what it is and how to use it (no time or version, so the
// output depends only on the input).
const header = `# llmcap k8s manifest: the plan %q swept by %d shard pod(s), the Indexed Job %s,
# merged by the Job %s-merge into %s on the volume %s-runs.
# Apply: kubectl apply -f THIS_FILE; watch: kubectl get pods -l app.kubernetes.io/instance=%s -w
# Then fetch %s (docs/distributed.md) and run llmcap analyze and llmcap report on it.
`

// YAML renders the objects as one multi-document YAML ("---" between documents),
// after a comment header; each document is the object's JSON form as YAML with its
// keys sorted, without the empty status a new object has. Errors are encoding errors
// (none for the objects Build makes).
func (m *Manifest) YAML() ([]byte, error) {
	var b bytes.Buffer
	name := m.Job.Name
	fmt.Fprintf(&b, header, m.PlanName, *m.Job.Spec.Completions, name, name, MergedDir, name, name, MergedDir)
	for i, obj := range []any{m.ConfigMap, m.PVC, m.Service, m.Job, m.MergeJob} {
		doc, err := document(obj)
		if err != nil {
			return nil, err
		}
		if i > 0 {
			b.WriteString("---\n")
		}
		b.Write(doc)
	}
	return b.Bytes(), nil
}

// document is obj as YAML without its top-level status.
func document(obj any) ([]byte, error) {
	j, err := json.Marshal(obj)
	if err != nil {
		return nil, fmt.Errorf("kube: encode %T: %w", obj, err)
	}
	var fields map[string]any
	if err := json.Unmarshal(j, &fields); err != nil {
		return nil, fmt.Errorf("kube: encode %T: %w", obj, err)
	}
	delete(fields, "status")
	out, err := yaml.Marshal(fields)
	if err != nil {
		return nil, fmt.Errorf("kube: encode %T: %w", obj, err)
	}
	return out, nil
}
