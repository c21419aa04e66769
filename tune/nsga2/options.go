package nsga2

import (
	"fmt"
	"math"
)

// Options sets an Optimizer's budget, seed and variation. A zero probability or
// distribution index takes its default.
type Options struct {
	// Population is the number of points asked in the first generation and of parents
	// kept after each (≥ 2; odd is fine).
	Population int
	// Offspring is the number of children asked per generation after the first, ≥ 1
	// (0: Population; pymoo's n_offsprings). Fewer than Population is a steadier
	// search: each generation's children compete with all Population parents kept.
	// Evaluations: Population + Offspring × (Generations − 1).
	Offspring int
	// Generations is the number of generations asked in all, the random first one
	// included (≥ 1): Population + Offspring × (Generations − 1) evaluations.
	Generations int
	// Seed seeds the one PCG all of the optimizer's draws come from.
	Seed uint64
	// CrossoverProb is the chance that a pair of parents is recombined rather than
	// copied, in (0, 1] (0: 0.9, Deb et al. 2002).
	CrossoverProb float64
	// EtaC is SBX's distribution index, > 0 (0: 20, Deb et al. 2002); larger keeps
	// children nearer their parents.
	EtaC float64
	// MutationProb is each variable's chance of mutation, in (0, 1] (0: 1 / the number
	// of Params).
	MutationProb float64
	// EtaM is polynomial mutation's distribution index, > 0 (0: 20, Deb et al. 2002);
	// larger makes smaller moves.
	EtaM float64
}

// Defaults of Options.
const (
	DefaultCrossoverProb = 0.9
	DefaultEtaC          = 20.0
	DefaultEtaM          = 20.0
)

// resolve fills opt's defaults for a space of nParams and adds its problems to errs.
func (opt Options) resolve(nParams int, errs *fieldErrors) Options {
	if opt.Population < 2 {
		errs.add(-1, "", "Population", fmt.Sprint(opt.Population), "must be ≥ 2")
	}
	if opt.Generations < 1 {
		errs.add(-1, "", "Generations", fmt.Sprint(opt.Generations), "must be ≥ 1")
	}
	if opt.Offspring == 0 {
		opt.Offspring = opt.Population
	}
	if opt.Offspring < 0 {
		errs.add(-1, "", "Offspring", fmt.Sprint(opt.Offspring), "must be ≥ 1, or 0 for Population")
	}
	if opt.CrossoverProb == 0 {
		opt.CrossoverProb = DefaultCrossoverProb
	}
	if opt.MutationProb == 0 && nParams > 0 {
		opt.MutationProb = 1 / float64(nParams)
	}
	if opt.EtaC == 0 {
		opt.EtaC = DefaultEtaC
	}
	if opt.EtaM == 0 {
		opt.EtaM = DefaultEtaM
	}
	prob := func(field string, v float64) {
		if !(v > 0 && v <= 1) {
			errs.add(-1, "", field, fmtF(v), "must be in (0, 1], or 0 for the default")
		}
	}
	eta := func(field string, v float64) {
		if !(v > 0) || math.IsInf(v, 1) {
			errs.add(-1, "", field, fmtF(v), "must be finite and > 0, or 0 for the default")
		}
	}
	prob("CrossoverProb", opt.CrossoverProb)
	prob("MutationProb", opt.MutationProb)
	eta("EtaC", opt.EtaC)
	eta("EtaM", opt.EtaM)
	return opt
}

// checkDirs adds the problems of an optimizer's directions to errs.
func checkDirs(dirs []Direction, errs *fieldErrors) {
	if len(dirs) == 0 {
		errs.add(-1, "", "dirs", "", "must hold at least one Direction")
	}
	for m, d := range dirs {
		if d != Minimize && d != Maximize {
			errs.add(-1, "", fmt.Sprintf("dirs[%d]", m), d.String(), "must be Minimize or Maximize")
		}
	}
}
