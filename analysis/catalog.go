package analysis

import (
	"fmt"

	"github.com/llmcap/llmcap/catalog"
	"github.com/llmcap/llmcap/plan"
)

// sizingCatalog returns the catalog the plan ran with: the embedded one with the
// override file named by target.simulator.catalog merged on top. When the override
// cannot be read (e.g. a run directory moved to another machine) it returns the
// embedded catalog and a warning saying so; a nil catalog (a broken embedded file)
// disables what-if projections and catalog prices.
func sizingCatalog(p *plan.Plan) (*catalog.Catalog, string) {
	path := p.Target.Simulator.Catalog
	cat, err := catalog.Load(path)
	if err == nil {
		return cat, ""
	}
	def, derr := catalog.Default()
	if derr != nil || path == "" {
		return nil, fmt.Sprintf("GPU catalog unreadable (%v): what-if rows and catalog prices are left out", err)
	}
	return def, fmt.Sprintf("catalog override %s not applied (%v): sizing uses the embedded catalog", path, err)
}

// hbmUsableFrac is the share of a GPU's memory the weights may take (the rest is
// activations, KV cache and runtime).
const hbmUsableFrac = 0.9

// weightsFit reports whether the model's weights (catalog.Model.WeightBytes), split
// over gpus GPUs, fit in hbmUsableFrac of g's memory; true when either size is unknown.
func weightsFit(m catalog.Model, ok bool, g catalog.GPU, gpus int) bool {
	if !ok || g.HBMGB <= 0 || m.WeightBytes() <= 0 {
		return true
	}
	return m.WeightBytes()/float64(max(gpus, 1)) <= g.HBMGB*1e9*hbmUsableFrac
}

// rooflineFactor scales capacity from GPU a to b: prefill ∝ FLOPS, decode (and the
// queue, whose service time is mostly decode) ∝ HBM bandwidth.
func rooflineFactor(a, b catalog.GPU, bottleneck Regime) float64 {
	if bottleneck == RegimePrefill {
		if a.BF16TFLOPS > 0 {
			return b.BF16TFLOPS / a.BF16TFLOPS
		}
		return 1
	}
	if a.HBMTBps > 0 {
		return b.HBMTBps / a.HBMTBps
	}
	return 1
}

// gpuPrice is a what-if row's $/GPU-hour and where it comes from.
type gpuPrice struct {
	usd    float64
	source PriceSource
}

// measuredPrice prices the measured GPU: report.gpu_hour_usd when set, else the GPU's
// catalog price_usd_per_hour, else none (0).
func measuredPrice(sz sizing) gpuPrice {
	if sz.gpuHourUSD > 0 {
		return gpuPrice{sz.gpuHourUSD, PricePlan}
	}
	if g, ok := sz.cat.GPUFold(sz.gpu); ok && g.PriceUSDPerHour > 0 {
		return gpuPrice{g.PriceUSDPerHour, PriceCatalog}
	}
	return gpuPrice{0, PriceNone}
}

// projectedPrice prices a what-if GPU: its own catalog price_usd_per_hour, else the
// measured GPU's price, assumed.
func projectedPrice(g catalog.GPU, measured gpuPrice) gpuPrice {
	if g.PriceUSDPerHour > 0 {
		return gpuPrice{g.PriceUSDPerHour, PriceCatalog}
	}
	return gpuPrice{measured.usd, PriceMeasuredAssumed}
}
