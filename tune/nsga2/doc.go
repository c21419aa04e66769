// Package nsga2 is a multi-objective search over a mixed space of integer, real and
// categorical parameters: NSGA-II, the non-dominated sorting genetic algorithm of
// Deb, Pratap, Agarwal & Meyarivan, "A fast and elitist multiobjective genetic
// algorithm: NSGA-II", IEEE Trans. Evol. Comput. 6(2), 2002, with the variation of
// Deb's own NSGA-II code and the mixed-space handling of Optuna's NSGAIISampler. It
// holds no I/O and starts no goroutines: `llmcap tune` asks it for the engine settings
// to try (vLLM's max_num_seqs, max_num_batched_tokens, gpu_memory_utilization; Ollama's
// OLLAMA_NUM_PARALLEL), runs each trial and tells it the results.
//
// # The loop
//
//	o, err := nsga2.New(space, []nsga2.Direction{nsga2.Maximize, nsga2.Minimize}, nsga2.Options{Population: 16, Generations: 8, Seed: 1})
//	for !o.Done() {
//		pts := o.Ask()                  // Population points (then Offspring), each on its grid and Feasible
//		res := make([]nsga2.Result, len(pts))
//		for i, x := range pts {         // in the order asked
//			res[i] = evaluate(x)        // {X: x, Objectives: …} or {X: x, Failed: true}
//		}
//		if err := o.Tell(res); err != nil { … }
//	}
//	best := o.Front()                  // every non-dominated result told
//
// # Space
//
// A Space is a list of Params, each an Int (a grid of Step from Min up to Max), a Float
// (continuous, or a grid of Step), either optionally Log-scaled, or a Categorical (the
// indices 0 … Choices-1), and an optional Feasible constraint. A Point holds one value
// per Param, always on its grid, in its bounds and Feasible. New, Grid and Random
// validate the space and report every problem as a *FieldError naming the Param and the
// field.
//
// Sampling and variation work on a continuous coordinate per Int or Float: the value
// (its log with Log), its range widened by half a step at both ends on a grid so that
// rounding back gives each grid value, the end ones too, an equal share (Optuna's
// search-space transform). Random values are uniform in that coordinate, then rounded.
//
// # A generation
//
// Generation 0 is random: distinct feasible points spread by Latin hypercube sampling
// (each discrete or real range cut into Population strata, each used once; Random's
// draws fill what the strata cannot). Each later one is Options.Offspring children
// (the population by default; fewer makes the search steady-state-like, as pymoo's
// n_offsprings) bred from the parents (Deb et al. 2002, section III): two binary
// tournaments pick two parents (lower non-domination rank wins, then larger crowding distance, then a coin); with
// probability Options.CrossoverProb (0.9) they are recombined, each Int or Float variable
// with probability 1/2 by bounded simulated binary crossover (SBX; Deb & Agrawal,
// "Simulated binary crossover for continuous search space", Complex Systems 9, 1995;
// distribution index Options.EtaC, 20) and each Categorical by taking one parent's
// choice each; each child's variables then mutate with probability Options.MutationProb
// (1 / the number of Params), an Int or Float by bounded polynomial mutation (Deb &
// Goyal, "A combined genetic adaptive search (GeneAS) for engineering design", Computer
// Science and Informatics 26, 1996; index Options.EtaM, 20), a Categorical to a uniformly
// drawn other choice. A child is rounded to its grid and bounds; one that Feasible
// rejects or that repeats a point already asked is bred again, at most 50 times, then
// replaced by a random fresh point; only a spent space repeats points (Optimizer.Lookup
// returns the result told for one).
//
// Tell then keeps the best Population of parents and offspring together (μ+λ elitism):
// fast non-dominated sort into fronts, whole fronts in order, the last front that fits
// cut by crowding distance. A Failed result (a crashed trial, a server that did not
// start) is handled by constraint domination (Deb et al. 2002, section VI): dominated by
// every non-failed result and by no failed one, it ranks last, never enters the Front
// and never stops the search.
//
// # Determinism
//
// Every random number comes from one PCG of math/rand/v2 seeded with Options.Seed, read
// through the package's own conversions to floats and bounded integers; nothing depends
// on map order or goroutines. The same Space (a pure Feasible), directions, Options and
// told results therefore give the same Ask sequence: a resumed tune replays its trials
// through Ask and Tell and checks that the points match. (Math library results are
// assumed the same across runs: replay on the same architecture.)
//
// # Also here
//
// Grid enumerates a space whose every Param is discrete (at most MaxGridPoints points),
// in a fixed order; Random draws distinct feasible points; NonDominatedSort and
// CrowdingDistance are the two procedures of NSGA-II on plain objective vectors; and
// Hypervolume measures a front against a reference point, exactly, in any number of
// objectives (a sweep in two, slicing beyond, cost n^(d-1)). The tests run ZDT1 and ZDT2
// (Zitzler, Deb & Thiele, "Comparison of multiobjective evolutionary algorithms:
// empirical results", Evolutionary Computation 8(2), 2000) with 30 variables and check
// the front's hypervolume against the true front's.
package nsga2
