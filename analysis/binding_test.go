package analysis

import (
	"bytes"
	"strings"
	"testing"
)

// TestNoBindingConstraintIsSaidSo: a capacity that no SLA constraint bound — every load
// tested met the SLA (at_least), or there was no data — says why in the CLI's capacity
// line and in BindingText (what the PDF, XLSX and Markdown show), never "bound by -";
// a bound capacity names its constraint.
func TestNoBindingConstraintIsSaidSo(t *testing.T) {
	atLeast := Capacity{Method: MethodAtLeast, MaxConcurrencyWithinSLA: 8, RangeLow: 8, OpenEnded: true, Bottleneck: RegimeNone}
	if got := BindingText(atLeast); got != "none: no limit reached within the ladder" {
		t.Errorf("BindingText(at_least) = %q", got)
	}
	if got := BindingText(Capacity{Method: MethodNoData}); got != "none: no measured requests" {
		t.Errorf("BindingText(no_data) = %q", got)
	}
	if got := BindingText(Capacity{Method: MethodMeasured, LimitingConstraint: "ttft p95 ≤ 500 ms"}); got != "ttft p95 ≤ 500 ms" {
		t.Errorf("BindingText(measured) = %q", got)
	}
	var b bytes.Buffer
	printSegment(&b, &SegmentAnalysis{Segment: "s", Capacity: atLeast}, "concurrency", "")
	out := b.String()
	want := "Capacity: max concurrency 8, no limit reached within the ladder, no bottleneck;"
	if strings.Contains(out, "bound by -") || strings.Contains(out, "at_least") || !strings.Contains(out, want) ||
		!strings.Contains(out, "\n  At least 8 requests in flight: no load tested broke the SLA") {
		t.Errorf("capacity line:\n%s\nwant %q and the certainty in words", out, want)
	}
	b.Reset()
	bound := atLeast
	bound.Method, bound.LimitingConstraint, bound.OpenEnded = MethodMeasured, "ttft p95 ≤ 500 ms", false
	printSegment(&b, &SegmentAnalysis{Segment: "s", Capacity: bound}, "concurrency", "")
	if !strings.Contains(b.String(), "max concurrency 8, bound by ttft p95 ≤ 500 ms,") || strings.Contains(b.String(), "(measured)") {
		t.Errorf("capacity line:\n%s\nwant \"bound by ttft p95 ≤ 500 ms\"", b.String())
	}
}
