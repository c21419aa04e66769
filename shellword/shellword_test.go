package shellword

import (
	"os/exec"
	"testing"
)

// TestQuotedWordsReachTheCommandIntact: each word, quoted and run through sh, comes
// back as it was (spaces, quotes, $, backslashes, empty).
func TestQuotedWordsReachTheCommandIntact(t *testing.T) {
	words := []string{"plain", "with space", "it's", `a"b`, "$HOME", `back\slash`, "", "{port}", "a;b", "x*"}
	for _, w := range words {
		out, err := exec.Command("/bin/sh", "-c", "printf %s "+Quote(w)).Output()
		if err != nil {
			t.Fatal(err)
		}
		if string(out) != w {
			t.Errorf("%q came back as %q (quoted %s)", w, out, Quote(w))
		}
	}
	if got := Join([]string{"vllm", "serve", "--port", "{port}", "a b"}); got != "vllm serve --port {port} 'a b'" {
		t.Errorf("Join: %s", got)
	}
}
