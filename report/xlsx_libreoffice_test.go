package report

import (
	"context"
	"fmt"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// libreOfficePDF converts the XLSX at path to PDF with a real LibreOffice (a private
// profile, so a running or shared instance is not used) and returns the PDF's path and
// each page's text. It skips the test, saying why, when soffice or poppler is missing.
func libreOfficePDF(t *testing.T, path string) (string, []string) {
	t.Helper()
	for _, tool := range []string{"soffice", "pdftotext", "pdftoppm"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not installed (.ci/run installs libreoffice-calc and poppler-utils): %v", tool, err)
		}
	}
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "soffice", "-env:UserInstallation=file://"+filepath.Join(dir, "profile"),
		"--headless", "--norestore", "--convert-to", "pdf", "--outdir", dir, path)
	cmd.Env = append(os.Environ(), "HOME="+dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("soffice --convert-to pdf: %v\n%s", err, out)
	}
	pdf := filepath.Join(dir, strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))+".pdf")
	text, err := exec.Command("pdftotext", "-enc", "UTF-8", "-layout", pdf, "-").Output()
	if err != nil {
		t.Fatalf("pdftotext %s: %v", pdf, err)
	}
	return pdf, strings.Split(string(text), "\f")
}

// rasterPage renders page (1-based) of pdf at dpi with pdftoppm.
func rasterPage(t *testing.T, pdf string, page, dpi int) image.Image {
	t.Helper()
	prefix := filepath.Join(t.TempDir(), "page")
	p := fmt.Sprint(page)
	if out, err := exec.Command("pdftoppm", "-r", fmt.Sprint(dpi), "-f", p, "-l", p, "-singlefile", "-png", pdf, prefix).CombinedOutput(); err != nil {
		t.Fatalf("pdftoppm: %v\n%s", err, out)
	}
	fh, err := os.Open(prefix + ".png")
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	img, err := png.Decode(fh)
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// pixelsNear counts the pixels of img within distance tol (sum of the channels'
// absolute differences, 0–255 each) of the colour rgb (RRGGBB hex).
func pixelsNear(img image.Image, rgb string, tol int) int {
	var want [3]int
	fmt.Sscanf(rgb, "%02X%02X%02X", &want[0], &want[1], &want[2])
	n := 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			d := abs(int(r>>8)-want[0]) + abs(int(g>>8)-want[1]) + abs(int(bl>>8)-want[2])
			if d <= tol {
				n++
			}
		}
	}
	return n
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// pageWith is the 1-based number of the first page whose text contains every one of
// words (0 when none).
func pageWith(pages []string, words ...string) int {
	for i, p := range pages {
		all := true
		for _, w := range words {
			all = all && strings.Contains(p, w)
		}
		if all {
			return i + 1
		}
	}
	return 0
}

// TestXLSXRendersInLibreOffice converts the workbook with a real LibreOffice Calc and
// looks at the PDF: the Summary sheet is one page (answer, calculator and capacity plan
// together), the three charts share one page, and each segment's series colour is drawn
// there (lines and markers, not only grey axes and gridlines).
func TestXLSXRendersInLibreOffice(t *testing.T) {
	_, path, in := writeFixtureXLSX(t)
	pdf, pages := libreOfficePDF(t, path)
	if len(pages) < 2 {
		t.Fatalf("PDF has %d pages", len(pages))
	}
	if !strings.Contains(pages[0], title(in.a)) || !strings.Contains(pages[0], "Capacity calculator") ||
		!strings.Contains(pages[0], "Capacity plan from the analysis") {
		t.Errorf("page 1 is not the whole Summary sheet (title, calculator, capacity plan):\n%s", pages[0])
	}
	charts := pageWith(pages, "TTFT p95 vs load", "Throughput vs load", "ITL p95 vs load")
	if charts == 0 {
		t.Fatal("no page holds the three charts")
	}
	img := rasterPage(t, pdf, charts, 60)
	names, _, _ := segmentRows(in.a)
	for i, name := range names {
		rgb := chartSeriesRGB(i)
		if n := pixelsNear(img, rgb, 45); n < 250 {
			t.Errorf("chart page %d: %d pixels of segment %s's colour #%s, want ≥ 250 (its lines and markers)", charts, n, name, rgb)
		}
	}
}
