package kube

import (
	"fmt"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation"
)

// TestDefaultNameIsADNSLabel: plan names become llmcap-… DNS-1035 labels short
// enough for NAME-merge and NAME-999.
func TestDefaultNameIsADNSLabel(t *testing.T) {
	long := strings.Repeat("a", 64)
	for in, want := range map[string]string{
		"chat-70b":             "llmcap-chat-70b",
		"Chat_70B.v2":          "llmcap-chat-70b-v2",
		"llmcap-demo":          "llmcap-demo",
		"--x--":                "llmcap-x",
		"___":                  "llmcap",
		long:                   ("llmcap-" + long)[:MaxNameLen],
		"a-" + long:            ("llmcap-a-" + long)[:MaxNameLen],
		"x" + long[:48] + "-y": "llmcap-x" + long[:48], // cut before a '-': trimmed
	} {
		got := DefaultName(in)
		if got != want {
			t.Errorf("DefaultName(%q) = %q, want %q", in, got, want)
		}
		if err := checkName(got, "--name"); err != nil {
			t.Errorf("DefaultName(%q) = %q is refused: %v", in, got, err)
		}
	}
}

// TestObjectNamesValidate: with the longest name and the most shards, every object
// name is a DNS-1123 subdomain (the Service and Jobs DNS-1035 labels), the last
// shard's hostname and shard 0's address are DNS names, and every label is valid.
func TestObjectNamesValidate(t *testing.T) {
	name := "l" + strings.Repeat("x", MaxNameLen-1)
	m := decodeManifest(t, generate(t, func(o *Options) { o.Name, o.Shards = name, MaxShards }))
	for _, n := range []string{m.cm.Name, m.pvc.Name} {
		if msgs := validation.IsDNS1123Subdomain(n); len(msgs) > 0 {
			t.Errorf("%q: %v", n, msgs)
		}
	}
	host := fmt.Sprintf("%s-%d", m.job.Name, MaxShards-1)
	for _, n := range []string{m.svc.Name, m.job.Name, m.mrg.Name, host} {
		if msgs := validation.IsDNS1035Label(n); len(msgs) > 0 {
			t.Errorf("%q: %v", n, msgs)
		}
	}
	addr := m.job.Spec.Template.Spec.Containers[0].Args[6]
	if h, _, _ := strings.Cut(addr, ":"); len(validation.IsDNS1123Subdomain(h)) > 0 {
		t.Errorf("rendezvous %q is not a DNS name", addr)
	}
	for _, l := range []map[string]string{m.cm.Labels, m.pvc.Labels, m.svc.Labels, m.job.Labels, m.mrg.Labels, m.job.Spec.Template.Labels} {
		for k, v := range l {
			if msgs := append(validation.IsQualifiedName(k), validation.IsValidLabelValue(v)...); len(msgs) > 0 {
				t.Errorf("label %s=%s: %v", k, v, msgs)
			}
		}
	}
}
