package tune

import "testing"

// TestTemplateRendersPlaceholders: {port}, {llmcap} and parameters are replaced, "{{"
// is a literal brace, an unknown placeholder stays as written.
func TestTemplateRendersPlaceholders(t *testing.T) {
	vals := map[string]string{"port": "8123", "max_num_seqs": "64", "llmcap": "/usr/bin/llmcap"}
	cases := map[string]string{
		"--port={port}":             "--port=8123",
		"{llmcap}":                  "/usr/bin/llmcap",
		"{max_num_seqs}x{port}":     "64x8123",
		`{{"json": {max_num_seqs}}`: `{"json": 64}`,
		"{unknown}":                 "{unknown}",
		"no braces":                 "no braces",
		"open {port":                "open {port",
	}
	for in, want := range cases {
		if got := render(in, vals); got != want {
			t.Errorf("render(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestShellQuoteRoundTrips: the command line quotes what a shell would split or expand.
func TestShellQuoteRoundTrips(t *testing.T) {
	got := CommandLine([]string{"OLLAMA_NUM_PARALLEL=4", "A=b c"}, []string{"vllm", "serve", "--port", "{port}", "it's", ""})
	want := `OLLAMA_NUM_PARALLEL=4 'A=b c' vllm serve --port {port} 'it'\''s' ''`
	if got != want {
		t.Errorf("CommandLine = %s\nwant          %s", got, want)
	}
}
