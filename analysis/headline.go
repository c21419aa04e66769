package analysis

import (
	"fmt"
	"math"
	"strings"

	"github.com/llmcap/llmcap/plan"
)

// Headline is the answer's companion lines for a reader who is not a performance
// engineer (page 1 of the PDF, the top of the Markdown and the workbook): plain words,
// no engine settings, regime names or statistics jargon. The technical material
// (bottleneck evidence, regime, bootstrap noise, method) stays in Capacity.
type Headline struct {
	// Note is the one short line under the answer that says what a "user" is here:
	// measured users who pause between requests, users estimated from requests in
	// flight (or from a rate), or no think time at all.
	Note string `json:"note"`
	// Limit says what limits capacity, e.g. "Requests wait in line for one of the
	// server's 16 slots (it runs 16 requests at once)."
	Limit string `json:"limit"`
	// Action says what to do, e.g. "Let the server run more requests at once …".
	Action string `json:"action"`
	// Certainty says how sure the answer is: which part is measured, which is
	// interpolated or modelled, and the range, e.g. "Measured: 186 users met the SLA
	// and 192 broke it, so capacity lies between 186 and 191 users."
	Certainty string `json:"certainty"`
}

// headlineOf writes a's headline lines from its overall capacity, the headline
// segment's steps (server evidence) and the deployment (dep, sz).
func headlineOf(a *Analysis, dep deployment, sz sizing) Headline {
	c := a.Overall
	sa := headlineSegment(a)
	cpu := deviceNoun(sz.gpu) == "machine"
	note := usersNote(a, c)
	if c.OfferedRateRps > 0 && !c.ClientLimited {
		note += fmt.Sprintf(" The server completed %s of the %s requests/s offered.", rateNum(c.MaxRateWithinSLA), rateNum(c.OfferedRateRps))
	}
	return Headline{Note: strings.TrimSpace(note), Limit: limitWords(a, c, sa, dep),
		Action: actionWords(a, c, sa, dep, cpu), Certainty: CertaintyText(a.Schedule, c)}
}

// headlineSegment is the analysis whose capacity is the headline (the mix, or the
// segment OverallSource names; an empty one when there is none).
func headlineSegment(a *Analysis) *SegmentAnalysis {
	if a.Mix != nil && a.OverallSource == plan.MixSegment {
		return a.Mix
	}
	for i := range a.Segments {
		if a.Segments[i].Segment == a.OverallSource {
			return &a.Segments[i]
		}
	}
	return &SegmentAnalysis{}
}

// usersNote explains, in one line, how the answer's users relate to requests in flight.
func usersNote(a *Analysis, c Capacity) string {
	z := fmtNum(c.ThinkTimeS)
	switch {
	case c.Method == MethodNoData || c.Method == MethodBelowFirstStep:
		return ""
	case c.UsersSource == UsersMeasured:
		pause := "about " + z + " s (at random)"
		if a.Plan.Ladder.ThinkDist() == plan.ThinkConstant {
			pause = "exactly " + z + " s"
		}
		return fmt.Sprintf("A user sends a request, reads the answer and pauses %s before the next, so many users keep only a few requests in flight at once; the test ran that many users.", pause)
	case c.UsersSource == UsersConverted && c.ThinkTimeS > 0 && a.Schedule == plan.ScheduleRate:
		return fmt.Sprintf("The test sent requests at fixed rates; the users (who pause %s s between requests) are estimated from the rate and the answer time, not measured.", z)
	case c.UsersSource == UsersConverted && c.ThinkTimeS > 0:
		return fmt.Sprintf("The test held fixed numbers of requests in flight; the users (who pause %s s between requests) are estimated from them and the answer time, not measured.", z)
	case a.Schedule == plan.ScheduleRate:
		return "The test sent requests at fixed rates; no think time was set, so no user count is estimated."
	}
	return "No think time was set, so each user counts as one request in flight at all times."
}

// loadUnit names a capacity's load in words: "users", "requests in flight" or
// "requests/s".
func loadUnit(schedule string, c Capacity) string {
	switch {
	case c.UsersSource == UsersMeasured:
		return "users"
	case schedule == plan.ScheduleRate:
		return "requests/s"
	}
	return "requests in flight"
}

// rateNum renders a request rate (req/s) for a sentence: whole rates without decimals
// ("15"), others to about 3 significant digits ("20.2", "3.84", "0.512").
func rateNum(x float64) string {
	ax := math.Abs(x)
	switch {
	case x == math.Trunc(x) && ax < 1e12:
		return fmt.Sprintf("%.0f", x)
	case ax >= 100:
		return fmt.Sprintf("%.0f", x)
	case ax >= 10:
		return fmt.Sprintf("%.1f", x)
	case ax >= 1:
		return fmt.Sprintf("%.2f", x)
	}
	return fmt.Sprintf("%.3f", x)
}

// certLoad renders a load x with its unit: "186 users", "12 requests in flight",
// "20.2 requests/s".
func certLoad(schedule string, c Capacity, x float64) string {
	if schedule == plan.ScheduleRate && c.UsersSource != UsersMeasured {
		return rateNum(x) + " requests/s"
	}
	return fmtNum(roundTo(x, 1)) + " " + singularIfOne(loadUnit(schedule, c), roundTo(x, 1))
}

// singularIfOne is unit (loadUnit's "users" or "requests in flight") for n of them:
// its singular ("user", "request in flight") when n is 1; other units as they are.
func singularIfOne(unit string, n float64) string {
	if n != 1 {
		return unit
	}
	switch unit {
	case "users":
		return "user"
	case "requests in flight":
		return "request in flight"
	}
	return unit
}

// CertaintyText says, in a manager's words, how sure capacity c (of a ladder on
// schedule) is: what was measured, what the queueing model filled in, and the range.
// Every output shows it as written (Headline.Certainty).
func CertaintyText(schedule string, c Capacity) string {
	w := func(x float64) string { return certLoad(schedule, c, x) }
	n := func(x float64) string {
		if schedule == plan.ScheduleRate && c.UsersSource != UsersMeasured {
			return rateNum(x)
		}
		return fmtNum(roundTo(x, 1))
	}
	between := func() string {
		if c.RangeHigh > c.RangeLow && c.RangeLow > 0 {
			return fmt.Sprintf("between %s and %s", n(c.RangeLow), w(c.RangeHigh))
		}
		return "at " + w(capacityLoad(schedule, c))
	}
	span := func() string { // "187–190 users"
		if c.RangeHigh > c.RangeLow && c.RangeLow > 0 {
			return n(c.RangeLow) + "–" + w(c.RangeHigh)
		}
		return w(capacityLoad(schedule, c))
	}
	switch c.Method {
	case MethodMeasured:
		return fmt.Sprintf("Measured: %s met the SLA and %s broke it, so capacity lies %s.", w(c.PassLoad), w(c.FailLoad), between())
	case MethodInterpolated:
		return fmt.Sprintf("Modelled between measurements: %s met the SLA and %s broke it; between them the queueing model puts capacity at about %s (range %s).",
			w(c.PassLoad), w(c.FailLoad), w(capacityLoad(schedule, c)), span())
	case MethodModel:
		hi := ""
		if c.OpenEnded {
			hi = ", perhaps more"
		}
		return fmt.Sprintf("Modelled beyond the measurements: every load tested met the SLA, up to %s; the queueing model projects about %s (range %s%s). Treat it as an estimate.",
			w(c.PassLoad), w(capacityLoad(schedule, c)), span(), hi)
	case MethodAtLeast:
		return fmt.Sprintf("At least %s: no load tested broke the SLA, so the true capacity is higher; this number is a lower bound.", w(capacityLoad(schedule, c)))
	case MethodBelowFirstStep:
		return "Measured: even the lowest load tested broke the SLA, so this deployment serves no users within it."
	}
	return "No verdict: no load tested gave a usable measurement."
}

// capacityLoad is a capacity's load on its ladder's axis (users, rate or requests in
// flight).
func capacityLoad(schedule string, c Capacity) float64 {
	if c.UsersSource == UsersMeasured {
		return c.UsersWithThinkTime
	}
	if schedule == plan.ScheduleRate {
		return c.MaxRateWithinSLA
	}
	return c.MaxConcurrencyWithinSLA
}
