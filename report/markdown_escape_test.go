package report

import (
	"strings"
	"testing"
)

// Plan text in summary.md (title, notes, a model name in the answer) stays plain text:
// inline HTML, emphasis, code, links and headings arrive backslash-escaped, so a
// Markdown renderer shows the characters instead of running or formatting them.
func TestMarkdownEscapesPlanText(t *testing.T) {
	const evil = "<script>alert(1)</script> *bold* _it_ `code` [link](http://x) # h | cell"
	const want = "\\<script\\>alert(1)\\</script\\> \\*bold\\* \\_it\\_ \\`code\\` \\[link\\](http://x) \\# h \\| cell"
	a := fxAnalysis()
	a.Plan.Report.Title = "T " + evil
	a.Plan.Report.Notes = "N " + evil
	a.Answer = "A " + evil
	in, err := loadInput(fxWriteRunDir(t, a, 10), a)
	if err != nil {
		t.Fatal(err)
	}
	md := renderMarkdown(in, nil)
	for _, prefix := range []string{"# T ", "N ", "**A "} {
		if !strings.Contains(md, prefix+want) {
			t.Errorf("summary.md lacks the escaped %q text %q", prefix, want)
		}
	}
	if strings.Contains(md, "<script>") || strings.Contains(md, " *bold* ") {
		t.Errorf("plan text reached summary.md as markup")
	}
}
