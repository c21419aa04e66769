package kube

import (
	"strings"
	"testing"
)

// TestBadFlagsAreRefusedByName: each bad flag's error names the flag.
func TestBadFlagsAreRefusedByName(t *testing.T) {
	for _, tc := range []struct {
		want string
		edit func(*Options)
	}{
		{"-c PLAN", func(o *Options) { o.Plan = "" }},
		{"--shards 0", func(o *Options) { o.Shards = 0 }},
		{"--shards 1001", func(o *Options) { o.Shards = 1001 }},
		{"--image", func(o *Options) { o.Image = "" }},
		{"--name \"Bad_Name\"", func(o *Options) { o.Name = "Bad_Name" }},
		{"--name \"7up\"", func(o *Options) { o.Name = "7up" }},
		{"at most 57 characters", func(o *Options) { o.Name = strings.Repeat("a", 58) }},
		{"--namespace", func(o *Options) { o.Namespace = "Bench" }},
		{"--storage-class", func(o *Options) { o.StorageClass = "NFS class" }},
		{"--storage", func(o *Options) { o.Storage = "ten gigs" }},
		{"--storage", func(o *Options) { o.Storage = "" }},
		{"--cpu", func(o *Options) { o.CPU = "-1" }},
		{"--memory", func(o *Options) { o.Memory = "lots" }},
		{"--port 0", func(o *Options) { o.Port = 0 }},
		{"--port 70000", func(o *Options) { o.Port = 70000 }},
		{"--api-key-secret", func(o *Options) { o.APIKeySecret = "llm-api" }},
		{"--api-key-secret", func(o *Options) { o.APIKeySecret = "llm-api/" }},
		{"--merge-wait", func(o *Options) { o.MergeWait = 0 }},
	} {
		o := exampleOptions()
		tc.edit(&o)
		err := o.Check()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: Check() = %v, want an error naming %q", tc.want, err, tc.want)
		}
		if _, gerr := Generate(o); gerr == nil {
			t.Errorf("%s: Generate accepted the options", tc.want)
		}
	}
	if err := exampleOptions().Check(); err != nil {
		t.Errorf("the example options are refused: %v", err)
	}
}

// TestFlagProblemsAreListedTogether: every bad flag is reported at once.
func TestFlagProblemsAreListedTogether(t *testing.T) {
	o := Options{}
	err := o.Check()
	for _, w := range []string{"-c PLAN", "--shards", "--image", "--storage", "--port", "--merge-wait"} {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("Check() of zero options = %v, want it to name %s", err, w)
		}
	}
}
