package analysis

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmcap/llmcap/plan"
)

// pricedRun analyses the queue-bound simulated run measured on an H100-SXM (report
// price $2/GPU-hour, 1,000 target users) with what-if GPUs, under the catalog override
// yaml ("" for none), and returns the analysis.
func pricedRun(t *testing.T, override string, whatIf ...string) *Analysis {
	t.Helper()
	p := simPlan("priced", queueLadder[:6], plan.SLA{TTFTMs: map[string]float64{"p95": 300}})
	p.Target.Model = "llama-3.1-8b"
	p.Report.WhatIfGPUs = whatIf
	if override != "" {
		p.Target.Simulator.Catalog = filepath.Join(t.TempDir(), "catalog.yaml")
		if err := os.WriteFile(p.Target.Simulator.Catalog, []byte(override), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return mustAnalyze(t, metaFor(p), queueSim.ladder(p))
}

func rowOf(t *testing.T, a *Analysis, gpu string) WhatIf {
	t.Helper()
	for _, w := range a.WhatIf {
		if w.GPU == gpu {
			return w
		}
	}
	t.Fatalf("no what-if row for %s: %+v (warnings %q)", gpu, a.WhatIf, a.WarningMessages())
	return WhatIf{}
}

// TestOverridePriceChangesWhatIfCost: a catalog override pricing the H200 at
// $3.70/GPU-hour makes the H200 what-if row cost its GPUs at $3.70 (from $2, the
// measured GPU's price, assumed, without the override), with the replicas unchanged;
// a GPU the override adds (X1) is projected by its own bandwidth and priced at its own
// price; the A100 (no price) and the measured H100 rows keep $2.
func TestOverridePriceChangesWhatIfCost(t *testing.T) {
	before := pricedRun(t, "", "H200", "A100-80GB")
	after := pricedRun(t, "gpus:\n  - {name: H200, price_usd_per_hour: 3.7}\n"+
		"  - {name: X1, bf16_tflops: 500, hbm_gb: 96, hbm_tbps: 6.7, price_usd_per_hour: 1.9, source: test}\n",
		"H200", "A100-80GB", "X1")
	c := after.Overall
	if c.Bottleneck == RegimePrefill || c.UsersWithThinkTime <= 0 || c.OutputTokensPerSAtCapacity <= 0 {
		t.Fatalf("want a decode- or queue-bound capacity, got %+v", c)
	}
	// Independently: capacity scales with HBM bandwidth (datasheets: H100 3.35 TB/s,
	// H200 4.8, X1 6.7); replicas keep 20% headroom; a month is 730 hours.
	for _, g := range []struct {
		name     string
		tbps     float64
		price    float64
		priceWas float64
	}{{"H200", 4.8, 3.7, 2}, {"X1", 6.7, 1.9, 0}} {
		w := rowOf(t, after, g.name)
		users := math.Floor(c.UsersWithThinkTime * g.tbps / 3.35)
		replicas := int(math.Ceil(1000 / (users * 0.8)))
		perMOut := g.price / (c.OutputTokensPerSAtCapacity * g.tbps / 3.35 * 0.8 * 3600) * 1e6
		if w.UsersPerReplica != users || w.Replicas != replicas || w.GPUs != replicas || w.GPUHourUSD != g.price ||
			w.PriceSource != PriceCatalog || w.SamePriceAssumed || !w.Projected {
			t.Errorf("%s row %+v, want %v users/replica, %d replicas at $%v from the catalog", g.name, w, users, replicas, g.price)
		}
		near(t, g.name+" cost per month", w.CostPerMonthUSD, float64(replicas)*g.price*730, 1e-6)
		near(t, g.name+" cost per M output tokens", w.CostPerMOutputUSD, perMOut, 1e-9)
		if g.priceWas == 0 {
			continue
		}
		was := rowOf(t, before, g.name)
		if was.Replicas != replicas || was.GPUHourUSD != g.priceWas || was.PriceSource != PriceMeasuredAssumed || !was.SamePriceAssumed {
			t.Errorf("%s row without the override %+v", g.name, was)
		}
		near(t, g.name+" cost change", w.CostPerMonthUSD-was.CostPerMonthUSD, float64(replicas)*(g.price-g.priceWas)*730, 1e-6)
	}
	if a := rowOf(t, after, "A100-80GB"); a.GPUHourUSD != 2 || a.PriceSource != PriceMeasuredAssumed || !a.SamePriceAssumed {
		t.Errorf("A100 row %+v", a)
	}
	if m := rowOf(t, after, "H100-SXM"); m.Projected || m.GPUHourUSD != 2 || m.PriceSource != PricePlan {
		t.Errorf("measured row %+v", m)
	}
	if after.Answer != before.Answer {
		t.Errorf("the override changed the answer:\n%s\n%s", before.Answer, after.Answer)
	}
}

// TestCatalogPricesTheMeasuredGPU: without report.gpu_hour_usd, the measured GPU is
// priced at its catalog price, and a projected GPU without one reuses it, flagged.
func TestCatalogPricesTheMeasuredGPU(t *testing.T) {
	p := simPlan("measured-price", queueLadder[:6], plan.SLA{TTFTMs: map[string]float64{"p95": 300}})
	p.Report.GPUHourUSD = 0
	p.Report.WhatIfGPUs = []string{"A100-80GB"}
	p.Target.Simulator.Catalog = filepath.Join(t.TempDir(), "catalog.yaml")
	if err := os.WriteFile(p.Target.Simulator.Catalog, []byte("gpus:\n  - {name: H100-SXM, price_usd_per_hour: 3}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	a := mustAnalyze(t, metaFor(p), queueSim.ladder(p))
	m, a100 := rowOf(t, a, "H100-SXM"), rowOf(t, a, "A100-80GB")
	if m.GPUHourUSD != 3 || m.PriceSource != PriceCatalog || m.CostPerMonthUSD != float64(m.GPUs)*3*730 {
		t.Errorf("measured row %+v", m)
	}
	if a100.GPUHourUSD != 3 || a100.PriceSource != PriceMeasuredAssumed || !a100.SamePriceAssumed {
		t.Errorf("A100 row %+v", a100)
	}
}

// TestUnreadableOverrideFallsBackToTheEmbeddedCatalog: a run whose catalog override is
// gone (a run directory moved to another machine) is sized with the embedded catalog,
// and a warning names the file.
func TestUnreadableOverrideFallsBackToTheEmbeddedCatalog(t *testing.T) {
	p := simPlan("moved", queueLadder[:6], plan.SLA{TTFTMs: map[string]float64{"p95": 300}})
	p.Report.WhatIfGPUs = []string{"H200"}
	p.Target.Simulator.Catalog = filepath.Join(t.TempDir(), "gone.yaml")
	a := mustAnalyze(t, metaFor(p), queueSim.ladder(p))
	if w := rowOf(t, a, "H200"); w.GPUHourUSD != 2 || !w.SamePriceAssumed {
		t.Errorf("H200 row %+v", w)
	}
	warned := false
	for _, w := range a.Warnings {
		warned = warned || w.Kind == WarnSizing && strings.Contains(w.Message, "catalog override "+p.Target.Simulator.Catalog+" not applied") &&
			strings.Contains(w.Message, "sizing uses the embedded catalog")
	}
	if !warned {
		t.Errorf("warnings %q", a.WarningMessages())
	}
}

// TestHeadroomTextSaysThePlannedShare: the sizing table's footnote gives, in plain
// words without the config key, the share of its capacity each replica is planned for
// and the headroom.
func TestHeadroomTextSaysThePlannedShare(t *testing.T) {
	for h, want := range map[float64]string{
		0.2:  "Each server (replica) is planned at 80% of its capacity, leaving 20% headroom.",
		0.15: "Each server (replica) is planned at 85% of its capacity, leaving 15% headroom.",
		0:    "Each server (replica) is planned at 100% of its capacity, with no headroom.",
	} {
		if got := HeadroomText(h); got != want {
			t.Errorf("headroom %v: %q, want %q", h, got, want)
		}
	}
}
