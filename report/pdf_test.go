package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/johnfercher/go-tree/node"
	"github.com/johnfercher/maroto/v2/pkg/core"
	"github.com/llmcap/llmcap/analysis"
)

// structNode is a maroto component tree node as written to the golden file.
type structNode struct {
	Type    string         `json:"type"`
	Value   any            `json:"value,omitempty"`
	Details map[string]any `json:"details,omitempty"`
	Nodes   []*structNode  `json:"nodes,omitempty"`
}

// toStructNode converts maroto's GetStructure tree, replacing image bytes (which
// depend on the PNG encoder) by their extension only.
func toStructNode(n *node.Node[core.Structure]) *structNode {
	d := n.GetData()
	out := &structNode{Type: d.Type, Value: d.Value, Details: d.Details}
	if d.Type == "bytesImage" {
		out.Value = nil
		delete(out.Details, "bytes_size")
	}
	for _, next := range n.GetNexts() {
		out.Nodes = append(out.Nodes, toStructNode(next))
	}
	return out
}

// placeholderCharts are the run's charts with a tiny PNG instead of the rendering.
func placeholderCharts(t *testing.T, in *input) []Chart {
	img := image.NewRGBA(image.Rect(0, 0, 4, 2))
	img.Set(0, 0, color.White)
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	var out []Chart
	for _, s := range chartSpecs(in) {
		out = append(out, Chart{Name: s.name, Title: s.title, Segment: s.segment, Kind: s.kind, PNG: buf.Bytes()})
	}
	return out
}

func TestPDFStructureGolden(t *testing.T) {
	a := fxAnalysis()
	golden(t, "pdf-structure.txt", []byte(pdfStructure(t, fxWriteRunDir(t, a, 10), a)))
}

// pdfStructure lays out the PDF of run directory dir (analysis a, placeholder charts)
// and returns its component tree, one node per line (writeStructLines).
func pdfStructure(t *testing.T, dir string, a *analysis.Analysis) string {
	t.Helper()
	in, err := loadInput(dir, a)
	if err != nil {
		t.Fatal(err)
	}
	in.dir = "runs/" + filepath.Base(dir) // the footer names the directory as given: keep it machine-independent
	m, err := buildPDF(in, placeholderCharts(t, in))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := writeStructLines(&b, toStructNode(m.GetStructure()), 0); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// writeStructLines writes one node per line, indented by depth: type, value and the
// details as compact JSON (keys sorted by encoding/json).
func writeStructLines(b *strings.Builder, n *structNode, depth int) error {
	v, err := json.Marshal(n.Value)
	if err != nil {
		return err
	}
	d, err := json.Marshal(n.Details)
	if err != nil {
		return err
	}
	fmt.Fprintf(b, "%s%s %s %s\n", strings.Repeat(" ", depth), n.Type, v, d)
	for _, c := range n.Nodes {
		if err := writeStructLines(b, c, depth+1); err != nil {
			return err
		}
	}
	return nil
}

// TestPDFText renders the real PDF and reads it back with pdftotext (poppler-utils).
func TestPDFText(t *testing.T) {
	if _, err := exec.LookPath("pdftotext"); err != nil {
		t.Skip("pdftotext not installed (apt-get install poppler-utils)")
	}
	lowDPI(t)
	a := fxAnalysis()
	dir := fxWriteRunDir(t, a, 20)
	if err := Write(dir, a, []string{"pdf"}); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("pdftotext", "-enc", "UTF-8", filepath.Join(dir, FilePDF), "-").Output()
	if err != nil {
		t.Fatal(err)
	}
	pages := bytes.Count(out, []byte("\f"))
	flat := strings.Join(strings.Fields(string(out)), " ")
	for _, want := range []string{
		auto(a.Overall.MaxConcurrencyWithinSLA) + " concurrency", // the capacity number
		bottleneckVerdict(a.Overall.Bottleneck),                  // the bottleneck verdict
		"Bottleneck: queue",
		"TTFT p95 ≤ 500 ms", // UTF-8 through the embedded font
		a.RunID,
		"Page 1 of ",
		"2026-11-30 09:00 UTC", // the run's date, not today's
	} {
		if !strings.Contains(flat, want) {
			t.Errorf("PDF text lacks %q", want)
		}
	}
	if pages < 10 {
		t.Errorf("PDF has %d pages, want ≥ 10", pages)
	}
	t.Logf("PDF: %d pages", pages)
	if _, err := os.Stat(filepath.Join(dir, DirCharts)); err == nil {
		t.Errorf("charts/ written although only pdf was asked for")
	}
}
