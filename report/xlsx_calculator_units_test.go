package report

import (
	"strings"
	"testing"
)

// The workbook's calculator sizes a CPU-only server in machines, as its capacity plan
// below it and page 1 do (seen on the Ollama run: the plan says "14 machines", the
// calculator beside it "Price per GPU-hour", "GPUs per replica", "GPUs needed 14 GPUs").
func TestXLSXCalculatorSaysMachinesForCPU(t *testing.T) {
	in := chartRun(t, "ollama")
	if n := unitNoun(in.a); n != "machine" {
		t.Fatalf("fixture: want a CPU-only server, unit noun %q", n)
	}
	f, _, err := buildXLSX(in, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := f.GetRows(SheetSummary)
	if err != nil {
		t.Fatal(err)
	}
	in0 := false
	for i, r := range rows {
		if len(r) > 0 && strings.HasPrefix(r[0], "Capacity calculator") {
			in0 = true
			continue
		}
		if !in0 {
			continue
		}
		if len(r) == 0 || r[0] == "" {
			break // the calculator ends at its blank row
		}
		for _, c := range r {
			if strings.Contains(c, "GPU") {
				t.Errorf("Summary row %d of the calculator says GPU on a CPU-only server: %q", i+1, r)
				break
			}
		}
	}
	if !in0 {
		t.Fatal("no calculator on the Summary sheet")
	}
}

// The PDF's cost note prices one replica's machines, not GPUs, on a CPU-only server.
func TestSizingNotesSayMachinesForCPU(t *testing.T) {
	in := chartRun(t, "ollama")
	for _, n := range sizingNotes(in.a) {
		if strings.Contains(n, "GPU") {
			t.Errorf("sizing note on a CPU-only server says GPU: %q", n)
		}
	}
	if n := sizingNotes(in.a)[1]; !strings.Contains(n, "one replica's machines per hour") {
		t.Errorf("cost note %q, want the price of one replica's machines", n)
	}
}
