package kube

import (
	"bytes"
	"flag"
	"os"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata (go test ./kube -update)")

const golden = "testdata/manifest-4-shards.golden.yaml"

// TestManifestGolden: the example (4 shards, --spread, a key Secret, namespace bench)
// renders byte for byte as the golden file, and twice the same.
func TestManifestGolden(t *testing.T) {
	got := generate(t, nil)
	if again := generate(t, nil); !bytes.Equal(got, again) {
		t.Fatal("two renderings of one input differ")
	}
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (write it with go test ./kube -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("the manifest differs from %s (if the change is meant, go test ./kube -update):\n%s", golden, got)
	}
}
