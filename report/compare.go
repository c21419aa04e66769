package report

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/llmcap/llmcap/compare"
	"github.com/llmcap/llmcap/rundir"
)

// The comparison report renders a compare.Comparison (`llmcap compare`) into its own
// directory: compare.json (the Comparison as it is), compare.md, compare.html and
// compare.pdf (the verdict, the plan diff, the runs' answers side by side, the delta
// table and the drift section), compare.xlsx (the same as typed cells, the curves with
// native charts), and the overlaid curves under charts/. One file per format:
// compare_json.go, compare_markdown.go, compare_html.go, compare_pdf.go,
// compare_xlsx.go, compare_chart.go; their words and tables are in compare_text.go.

// CompareFormats are the accepted comparison report formats.
var CompareFormats = []string{"json", "md", "html", "pdf", "xlsx", "charts"}

// Output file names of the comparison report inside its directory.
const (
	FileCompareJSON     = "compare.json"
	FileCompareMarkdown = "compare.md"
	FileCompareHTML     = "compare.html"
	FileComparePDF      = "compare.pdf"
	FileCompareXLSX     = "compare.xlsx"
)

// compareWriteOrder is the order WriteCompare writes the formats in: the charts first,
// so that the Markdown links and the HTML embeds them.
var compareWriteOrder = []string{"charts", "json", "md", "html", "pdf", "xlsx"}

// WriteCompare renders c into dir (created if missing) in the given formats (any of
// CompareFormats: json, md, html, pdf, xlsx, charts; nil = all), each file written through rundir.WriteFileAtomic
// after removing the temporaries a killed earlier write left (rundir.RemoveTemps), and
// returns the paths written, the charts first. Errors: an unknown format (before
// anything is written), dir not creatable, or outputs that could not be written
// (joined; the other formats are still written), each naming its file.
func WriteCompare(dir string, c *compare.Comparison, formats []string) ([]string, error) {
	want, err := compareFormatSet(formats)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("compare report: %w", err)
	}
	var charts []Chart
	if want["charts"] || want["html"] || want["pdf"] {
		charts = buildCompareCharts(c, want["pdf"])
	}
	var written []string
	var errs []error
	for _, f := range compareWriteOrder {
		if !want[f] {
			continue
		}
		paths, err := writeCompareFormat(dir, f, c, charts, written)
		if err != nil {
			errs = append(errs, fmt.Errorf("compare report %s: %w", f, err))
			continue
		}
		written = append(written, paths...)
	}
	return written, errors.Join(errs...)
}

// CheckCompareFormats reports whether formats are all comparison report formats
// (CompareFormats, or "markdown" for md), so a caller can refuse a bad --format before
// any work. Errors: the first unknown format, naming the allowed ones.
func CheckCompareFormats(formats []string) error {
	_, err := compareFormatSet(formats)
	return err
}

// compareFormatSet is the set of formats wanted (nil: all).
func compareFormatSet(formats []string) (map[string]bool, error) {
	return formatSet(formats, CompareFormats, "compare report", map[string]string{"markdown": "md"})
}

// writeCompareFormat writes one format; before are the paths written so far.
func writeCompareFormat(dir, format string, c *compare.Comparison, charts []Chart, before []string) ([]string, error) {
	names := map[string]string{"json": FileCompareJSON, "md": FileCompareMarkdown, "html": FileCompareHTML,
		"pdf": FileComparePDF, "xlsx": FileCompareXLSX}
	if format == "charts" {
		return writeCompareCharts(dir, charts)
	}
	path := filepath.Join(dir, names[format])
	if _, err := rundir.RemoveTemps(path); err != nil {
		return nil, err
	}
	var err error
	switch format {
	case "json":
		err = writeCompareJSON(path, c)
	case "md":
		err = rundir.WriteFileAtomic(path, []byte(renderCompareMarkdown(c, relCharts(dir, before))))
	case "html":
		err = writeCompareHTML(path, c, charts)
	case "pdf":
		err = writeComparePDF(path, c, charts)
	case "xlsx":
		err = writeCompareXLSX(path, c)
	}
	if err != nil {
		return nil, err
	}
	return []string{path}, nil
}

// relCharts are the SVG chart files among paths, relative to dir.
func relCharts(dir string, paths []string) []string {
	var out []string
	for _, p := range paths {
		if filepath.Ext(p) != ".svg" {
			continue
		}
		if rel, err := filepath.Rel(dir, p); err == nil {
			out = append(out, filepath.ToSlash(rel))
		}
	}
	return out
}
