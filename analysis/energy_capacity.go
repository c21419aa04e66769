package analysis

import "math"

// EnergyAtCapacity is the GPUs' power and energy per output token at a segment's
// capacity point.
type EnergyAtCapacity struct {
	// PowerW is the GPUs' power draw at the capacity load (W, summed over GPUs):
	// interpolated linearly in load between the measured steps around it (the nearest
	// step's beyond the measured loads). GPUs is the number of GPUs scraped.
	PowerW float64 `json:"power_w"`
	GPUs   int     `json:"gpus"`
	// JoulesPerOutputToken is PowerW ÷ output tokens/s at capacity (J per generated
	// token); OutputTokensPerJoule its inverse.
	JoulesPerOutputToken float64 `json:"joules_per_output_token"`
	OutputTokensPerJoule float64 `json:"output_tokens_per_joule"`
	// Source is how the steps' energy was measured (their common source; "" when every
	// step's power is the power gauge's mean, too few scrapes for an energy).
	Source EnergySource `json:"source,omitempty"`
}

// attachGPU gives each of the segment's steps its GPU telemetry with its energy per
// output token, and the capacity its energy at the capacity point (none for a segment
// analysed from the mix's records: the power is the whole mix's, the tokens this
// segment's share).
func attachGPU(sa *SegmentAnalysis, gpu map[int]*GPUStats) {
	if len(gpu) == 0 {
		return
	}
	for i := range sa.Steps {
		s := &sa.Steps[i]
		g := gpu[s.Step]
		if g == nil {
			continue
		}
		c := *g
		c.PerGPU = append([]GPUDeviceStats(nil), g.PerGPU...)
		if !sa.FromMix && s.OutputTokenThroughput > 0 && c.PowerW > 0 {
			c.JoulesPerOutputToken = c.PowerW / s.OutputTokenThroughput
			c.OutputTokensPerJoule = 1 / c.JoulesPerOutputToken
		}
		s.GPU = &c
	}
	if !sa.FromMix {
		sa.Capacity.Energy = energyAtCapacity(sa.Steps, sa.Capacity)
	}
}

// energyAtCapacity interpolates the steps' GPU power at c's load (steps sorted by
// load); nil without GPU data or output tokens at capacity.
func energyAtCapacity(steps []StepStats, c Capacity) *EnergyAtCapacity {
	load, tok := loadOf(c), c.OutputTokensPerSAtCapacity
	if load <= 0 || !(tok > 0) || math.IsInf(tok, 0) {
		return nil
	}
	var loads, powers []float64
	var gpus int
	sources := map[EnergySource]bool{}
	for _, s := range steps {
		if s.GPU == nil || s.GPU.PowerW <= 0 {
			continue
		}
		loads, powers = append(loads, s.Load), append(powers, s.GPU.PowerW)
		gpus = max(gpus, s.GPU.GPUs)
		sources[s.GPU.EnergySource] = true
	}
	if len(loads) == 0 {
		return nil
	}
	p := interpolateClamped(loads, powers, load)
	e := &EnergyAtCapacity{PowerW: p, GPUs: gpus, JoulesPerOutputToken: p / tok, OutputTokensPerJoule: tok / p}
	if len(sources) == 1 {
		for s := range sources {
			e.Source = s
		}
	} else if !sources[""] {
		e.Source = EnergyMixed
	}
	return e
}

// interpolateClamped is y at x, linear between the neighbouring xs (sorted
// ascending; of equal xs the later one's y), the end values beyond them.
func interpolateClamped(xs, ys []float64, x float64) float64 {
	if x <= xs[0] {
		return ys[0]
	}
	for i := 1; i < len(xs); i++ {
		if x <= xs[i] {
			if xs[i] == xs[i-1] {
				return ys[i]
			}
			f := (x - xs[i-1]) / (xs[i] - xs[i-1])
			return ys[i-1] + f*(ys[i]-ys[i-1])
		}
	}
	return ys[len(ys)-1]
}

// energyCosts prices the measured GPUs' energy at capacity at usdPerKWh (USD per kWh):
// per month, gpus GPUs each drawing the scraped GPUs' mean power at capacity (PowerW ÷
// GPUs) for hoursPerMonth hours; per million output tokens, JoulesPerOutputToken × 10⁶
// J ÷ 3.6 × 10⁶ J/kWh. Both 0 without an energy at capacity or a price.
func energyCosts(e *EnergyAtCapacity, gpus int, usdPerKWh float64) (perMonthUSD, perMOutputUSD float64) {
	if e == nil || e.GPUs <= 0 || usdPerKWh <= 0 || gpus <= 0 {
		return 0, 0
	}
	perGPUkW := e.PowerW / float64(e.GPUs) / 1000
	return float64(gpus) * perGPUkW * hoursPerMonth * usdPerKWh, e.JoulesPerOutputToken * 1e6 / joulesPerKWh * usdPerKWh
}

// joulesPerKWh is 3.6 MJ, one kilowatt-hour.
const joulesPerKWh = 3.6e6
