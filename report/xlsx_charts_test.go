package report

import (
	"archive/zip"
	"io"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/llmcap/llmcap/analysis"
	"github.com/xuri/excelize/v2"
)

// zipParts reads the named parts (all parts whose name has one of the prefixes) of the
// XLSX at path.
func zipParts(t *testing.T, path string, prefixes ...string) map[string]string {
	t.Helper()
	z, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer z.Close()
	parts := map[string]string{}
	for _, zf := range z.File {
		for _, p := range prefixes {
			if !strings.HasPrefix(zf.Name, p) {
				continue
			}
			rc, err := zf.Open()
			if err != nil {
				t.Fatal(err)
			}
			b, err := io.ReadAll(rc)
			rc.Close()
			if err != nil {
				t.Fatal(err)
			}
			parts[zf.Name] = string(b)
		}
	}
	return parts
}

var (
	chartSerRe      = regexp.MustCompile(`(?s)<ser>.*?</ser>`)
	serLineRe       = regexp.MustCompile(`^<ser>.*?</tx><spPr><a:ln [^>]*w="(\d+)"[^>]*><a:solidFill><a:srgbClr val="([0-9A-F]{6})">`)
	serMarkerRe     = regexp.MustCompile(`<marker><symbol val="([a-z]+)"></symbol><size val="(\d+)"></size><spPr><a:solidFill><a:srgbClr val="([0-9A-F]{6})">`)
	serCacheRe      = regexp.MustCompile(`<(xVal|yVal)><numRef><f>([^<]*)</f><numCache><formatCode>General</formatCode><ptCount val="(\d+)"></ptCount>((?:<pt idx="\d+"><v>[^<]*</v></pt>)*)</numCache>`)
	serNameCacheRe  = regexp.MustCompile(`<tx><strRef><f>([^<]*)</f><strCache><ptCount val="1"></ptCount><pt idx="0"><v>([^<]+)</v></pt></strCache>`)
	cachePtRe       = regexp.MustCompile(`<pt idx="(\d+)"><v>([^<]*)</v></pt>`)
	noFillLineRe    = regexp.MustCompile(`<a:ln><a:noFill>`)
	emptyMarkerSpPr = regexp.MustCompile(`<marker>.*?<spPr></spPr></marker>`)
)

// TestXLSXChartSeriesVisible: every series of the three native charts is drawn with a
// visible line (solid fill in the segment's colour, ≥ 1 pt wide) and a filled marker
// symbol, and carries cached values equal to the Steps cells it refers to. excelize's
// defaults (<a:ln><a:noFill/>, an empty marker fill, an empty cache) render as an empty
// chart in LibreOffice and in previewers.
func TestXLSXChartSeriesVisible(t *testing.T) {
	f, path, in := writeFixtureXLSX(t)
	names, _, _ := segmentRows(in.a)
	charts := zipParts(t, path, "xl/charts/chart")
	if len(charts) != 3 {
		t.Fatalf("%d chart parts, want 3", len(charts))
	}
	for part, x := range charts {
		if noFillLineRe.MatchString(x) || emptyMarkerSpPr.MatchString(x) {
			t.Errorf("%s: a series has no line fill or an empty marker fill", part)
		}
		sers := chartSerRe.FindAllString(x, -1)
		if len(sers) != len(names) {
			t.Fatalf("%s: %d series, want one per segment (%d)", part, len(sers), len(names))
		}
		for i, ser := range sers {
			rgb := chartSeriesRGB(i)
			m := serLineRe.FindStringSubmatch(ser)
			if m == nil {
				t.Errorf("%s series %d: no solid line", part, i)
				continue
			}
			if w, _ := strconv.Atoi(m[1]); w < 12700 || m[2] != rgb {
				t.Errorf("%s series %d: line %s EMU in %s, want ≥ 1 pt in %s", part, i, m[1], m[2], rgb)
			}
			mk := serMarkerRe.FindStringSubmatch(ser)
			if mk == nil || mk[1] == "none" || mk[2] == "0" || mk[3] != rgb {
				t.Errorf("%s series %d: marker %v, want a symbol filled with %s", part, i, mk, rgb)
			}
			if !strings.Contains(ser, `<smooth val="0">`) {
				t.Errorf("%s series %d: smoothed; want straight segments between measured points", part, i)
			}
			nm := serNameCacheRe.FindStringSubmatch(ser)
			if nm == nil || nm[2] != names[i] {
				t.Errorf("%s series %d: cached name %v, want %q", part, i, nm, names[i])
			}
			caches := serCacheRe.FindAllStringSubmatch(ser, -1)
			if len(caches) != 2 {
				t.Errorf("%s series %d: %d cached value lists, want x and y", part, i, len(caches))
				continue
			}
			for _, c := range caches {
				assertCacheMatchesCells(t, f, part, c[2], c[3], c[4])
			}
		}
	}
}

// assertCacheMatchesCells: a reference's cache has one point per numeric cell of ref,
// at the cell's index, with the cell's value.
func assertCacheMatchesCells(t *testing.T, f *excelize.File, part, ref, count, pts string) {
	t.Helper()
	sheet, cells, err := refCells(ref)
	if err != nil {
		t.Fatal(err)
	}
	if count != strconv.Itoa(len(cells)) {
		t.Errorf("%s %s: ptCount %s, want %d", part, ref, count, len(cells))
	}
	got := map[int]float64{}
	for _, p := range cachePtRe.FindAllStringSubmatch(pts, -1) {
		i, _ := strconv.Atoi(p[1])
		got[i], _ = strconv.ParseFloat(p[2], 64)
	}
	numeric := 0
	for i, cell := range cells {
		raw, _ := f.GetCellValue(sheet, cell, excelize.Options{RawCellValue: true})
		want, err := strconv.ParseFloat(raw, 64)
		if err != nil {
			if _, ok := got[i]; ok {
				t.Errorf("%s %s: cached point %d for blank cell %s", part, ref, i, cell)
			}
			continue
		}
		numeric++
		if v, ok := got[i]; !ok || v != want {
			t.Errorf("%s %s: cached point %d = %v (present %v), want %s!%s = %v", part, ref, i, v, ok, sheet, cell, want)
		}
	}
	if numeric == 0 {
		t.Errorf("%s %s: no numeric cells: the chart would be empty", part, ref)
	}
}

// TestXLSXTTFTChartLogAxis: the TTFT chart's y axis is logarithmic (base 10) when the
// steps' TTFT p95 spans more than 20× (the demo: a queue past capacity), linear when
// it does not (the synthetic run); the other charts stay linear, and every axis's tick labels are dark.
func TestXLSXTTFTChartLogAxis(t *testing.T) {
	yLog := regexp.MustCompile(`<logBase val="10">`)
	for _, c := range []struct {
		name string
		log  bool
	}{{"demo", true}, {"synthetic, TTFT within 20×", false}} {
		in := fxInput(t, func(a *analysis.Analysis) {
			segs := a.Segments
			if a.Mix != nil {
				segs = append(segs, *a.Mix)
			}
			for _, seg := range segs {
				for i := range seg.Steps {
					seg.Steps[i].TTFTMs.P95 = min(max(seg.Steps[i].TTFTMs.P95, 100), 1900)
				}
			}
		})
		if c.log {
			in = chartRun(t, c.name)
		}
		if got := ttftSpan(in.a) > logSpan; got != c.log {
			t.Fatalf("%s fixture: TTFT p95 span %v, want above %v: %v", c.name, ttftSpan(in.a), logSpan, c.log)
		}
		path := filepath.Join(t.TempDir(), FileXLSX)
		if err := writeXLSX(path, in, nil); err != nil {
			t.Fatal(err)
		}
		charts := zipParts(t, path, "xl/charts/chart")
		for part, x := range charts {
			want := c.log && strings.Contains(x, "TTFT p95 vs load")
			if got := yLog.MatchString(x); got != want {
				t.Errorf("%s %s: log10 y axis %v, want %v", c.name, part, got, want)
			}
			if n := strings.Count(x, `<a:srgbClr val="333333">`); n < 2 {
				t.Errorf("%s %s: %d axes with dark tick labels, want both", c.name, part, n)
			}
		}
	}
}

// fxInput is the synthetic run's report input, its analysis changed by edit.
func fxInput(t *testing.T, edit func(a *analysis.Analysis)) *input {
	t.Helper()
	a := fxAnalysis()
	edit(a)
	in, err := loadInput(fxWriteRunDir(t, a, 20), a)
	if err != nil {
		t.Fatal(err)
	}
	return in
}
