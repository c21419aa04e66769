package analysis

// SizingBasis is a sizing row's basis in short words, as the report's page 1 ("How
// sure"), its sizing tables and the console summary tell it: how the capacity was found
// ("measured", "interpolated", "modelled", "lower bound", or "projected" for another
// GPU), ", est. users" when the users are converted from requests in flight or a rate,
// and, for a lower bound, the replicas as the upper bound they are ("at most 34
// replicas"; one replica needs no "at most").
func SizingBasis(a *Analysis, w WhatIf) string {
	c := a.Overall
	b := map[CapacityMethod]string{MethodMeasured: "measured", MethodInterpolated: "interpolated",
		MethodModel: "modelled", MethodAtLeast: "lower bound"}[c.Method]
	if w.Projected {
		b = "projected"
		if c.Method == MethodAtLeast {
			b = "projected lower bound"
		}
	}
	if b == "" {
		b = "measured"
	}
	if c.UsersSource == UsersConverted {
		b += ", est. users"
	}
	if c.Method == MethodAtLeast && w.Replicas > 1 {
		b += ": at most " + plural(w.Replicas, "replica")
	}
	return b
}
