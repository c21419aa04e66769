package analysis

// BindingText is a capacity's binding constraint as every output words it (the CLI's
// capacity line, the PDF, XLSX and Markdown): the SLA constraint that binds first, e.g.
// "ttft p95 ≤ 500 ms", or, when none bound, why: "none: no limit reached within the
// ladder" (every load tested met the SLA) or "none: no measured requests" (no data).
func BindingText(c Capacity) string {
	if c.LimitingConstraint != "" {
		return c.LimitingConstraint
	}
	return "none: " + noBindingReason(c)
}

// boundByText is the CLI capacity line's "bound by ttft p95 ≤ 500 ms", or, when no
// constraint bound, its reason ("no limit reached within the ladder").
func boundByText(c Capacity) string {
	if c.LimitingConstraint != "" {
		return "bound by " + c.LimitingConstraint
	}
	return noBindingReason(c)
}

// noBindingReason says why a capacity has no binding constraint.
func noBindingReason(c Capacity) string {
	if c.Method == MethodNoData {
		return "no measured requests"
	}
	return "no limit reached within the ladder"
}
