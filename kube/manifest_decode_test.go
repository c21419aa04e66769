package kube

import (
	"bytes"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
)

// TestManifestDecodesStrictly: every document decodes into its real type with no
// unknown or duplicate field, with and without the optional flags.
func TestManifestDecodesStrictly(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*Options)
	}{
		{"example", nil},
		{"bare", func(o *Options) {
			o.Namespace, o.Spread, o.CPU, o.Memory = "", false, "", ""
		}},
		{"storage class", func(o *Options) { o.StorageClass = "nfs-client"; o.Shards = 1 }},
	} {
		t.Run(tc.name, func(t *testing.T) { decodeManifest(t, generate(t, tc.edit)) })
	}
}

// TestStrictDecoderRejectsInjectedFields proves the decoder of the test above is
// strict: the Job document with an unknown field, or a field twice, is refused.
func TestStrictDecoderRejectsInjectedFields(t *testing.T) {
	job := documents(t, generate(t, nil))[3]
	if !bytes.Contains(job, []byte("\nspec:\n")) {
		t.Fatalf("the Job document has no top-level spec:\n%s", job)
	}
	for name, inject := range map[string]string{
		"unknown field":   "  completionz: 4\n",
		"duplicate field": "  completions: 4\n",
	} {
		t.Run(name, func(t *testing.T) {
			bad := strings.Replace(string(job), "\nspec:\n", "\nspec:\n"+inject, 1)
			_, _, err := strictDecoder(t).Decode([]byte(bad), nil, nil)
			if !runtime.IsStrictDecodingError(err) {
				t.Fatalf("decoding with %q injected: err = %v, want a strict decoding error", inject, err)
			}
		})
	}
}
