package report

import (
	"fmt"
	"strings"

	"github.com/llmcap/llmcap/analysis"
)

// calcInput is one input (or formula) row of the capacity calculator.
type calcInput struct {
	name, label, unit string
	value             any    // inputs
	formula           string // outputs
	style             int
	valid             *validation // inputs: the allowed range (nil: none)
}

// validation is an input cell's allowed range, enforced by Excel's data validation.
type validation struct {
	lo, hi any // int or float64
	whole  bool
	msg    string
}

// responseTimeS is the mean response time R (s, the mean E2E) at capacity behind the
// analysis's throughput X = N ÷ R (Little's law): the requests in flight at capacity
// (MaxConcurrencyWithinSLA) ÷ ThroughputAtCapacity. With it X · (R + Z) is the
// analysis's converted users per replica. 0 when unknown.
func responseTimeS(c analysis.Capacity) float64 {
	if r := c.MaxConcurrencyWithinSLA / c.ThroughputAtCapacity; c.ThroughputAtCapacity > 0 && finite(r) && r > 0 {
		return r
	}
	return 0
}

// calculatorRows defines the calculator: inputs (yellow) then formulas (green). With
// the default inputs it reproduces the analysis's sizing row for the headline target.
// Users measured by a users ladder are an input (the measured figure); users converted
// from a concurrency or rate ladder are computed from X, R and the think time, so
// editing the think time re-converts them. Devices are GPUs or machines (unitNoun);
// for a lower-bound capacity (method at_least) users read "at least", replicas "at most".
func calculatorRows(a *analysis.Analysis, st styles) []calcInput {
	u := unitNoun(a)
	units := capitalize(u) + "s"
	lower := a.Overall.Method == methodAtLeast
	atLeast, atMost := "", ""
	if lower {
		atLeast, atMost = ", at least (no step broke the SLA)", ", at most"
	}
	usable := NameUsersPerReplica + "*(1-" + NameHeadroom + ")"
	replicas := "IF(OR(" + NameHeadroom + "<0," + NameHeadroom + ">=1)," + `"n/a: headroom must be under 100%"` +
		",IF(" + usable + ">0,ROUNDUP(" + NameTargetUsers + "/(" + usable + "),0)," + `"n/a: no users per replica"` + "))"
	// No price (0): "—", as the PDF shows an unknown price, not a cost of $0.
	costFormula := fmt.Sprintf(`IF(%s>0,IFERROR(%s*%s*%d,"n/a"),"—")`, NameGPUHourUSD, NameGPUs, NameGPUHourUSD, hoursPerMonth)
	rows := []calcInput{
		{name: NameTargetUsers, label: "Target users", unit: "users", value: headlineTarget(a), style: st.inInt, valid: &validation{1, 1e9, true, "Target users: a whole number ≥ 1."}},
		{name: NameHeadroom, label: "Headroom kept free per replica", unit: "share of capacity", value: headroom(a), style: st.inPct, valid: &validation{0.0, 0.95, false, "Headroom: 0% to 95% of capacity kept free."}},
		{name: NameGPUHourUSD, label: "Price per " + u + "-hour", unit: "USD", value: gpuHourUSD(a), style: st.inUSD, valid: &validation{0.0, 1e6, false, "Price per " + u + "-hour: 0 or more USD."}},
		{name: NameGPUsPerReplica, label: units + " per replica", unit: u + "s", value: gpusPerReplica(a), style: st.inInt, valid: &validation{1, 1024, true, units + " per replica: a whole number from 1 to 1,024."}},
	}
	energyIn, energyOut := energyRows(a, st, u, atMost)
	rows = append(rows, energyIn...)
	rows = append(rows, usersRows(a, st, atLeast)...)
	rows = append(rows,
		calcInput{name: NameEffectiveUsers, label: "Planned load per replica = users per replica × (1 − headroom)", unit: "users" + atLeast, formula: usable, style: st.outNum1},
		calcInput{name: NameReplicas, label: "Replicas needed = target users ÷ planned load, rounded up", unit: "replicas" + atMost, formula: replicas, style: st.outInt},
		calcInput{name: NameGPUs, label: units + " needed", unit: u + "s" + atMost, formula: "IFERROR(" + NameReplicas + "*" + NameGPUsPerReplica + `,"n/a")`, style: st.outInt},
		calcInput{name: NameCostPerMonthUSD, label: "Cost per month", unit: fmt.Sprintf("USD (%d h)%s", hoursPerMonth, atMost), formula: costFormula, style: st.outUSD},
	)
	return append(rows, energyOut...)
}

// energyRows are the calculator's energy rows when the plan prices power
// (report.power_usd_per_kwh) and the analysis measured the GPUs' energy at capacity:
// inputs for the power per device at capacity (W, the scraped GPUs' mean) and the
// price per kWh, and the energy cost per month = devices needed × W ÷ 1000 × hours per
// month × price, as the what-if rows' energy / month. Both nil otherwise.
func energyRows(a *analysis.Analysis, st styles, u, atMost string) (in, out []calcInput) {
	e, price := a.Overall.Energy, a.Plan.Report.PowerUSDPerKWh
	if e == nil || e.GPUs <= 0 || !(e.PowerW > 0) || !(price > 0) {
		return nil, nil
	}
	in = []calcInput{
		{name: NamePowerPerGPUW, label: "Power per " + u + " at capacity (measured by the GPU exporter)", unit: "W", value: e.PowerW / float64(e.GPUs),
			style: st.inNum1, valid: &validation{0.0, 1e5, false, "Power per " + u + ": 0 to 100,000 W."}},
		{name: NamePowerUSDPerKWh, label: "Power price (report.power_usd_per_kwh)", unit: "USD per kWh", value: price,
			style: st.inUSD, valid: &validation{0.0, 1e3, false, "Power price: 0 to 1,000 USD per kWh."}},
	}
	formula := fmt.Sprintf(`IF(%s>0,IFERROR(%s*%s/1000*%d*%s,"n/a"),"—")`, NamePowerUSDPerKWh, NameGPUs, NamePowerPerGPUW, hoursPerMonth, NamePowerUSDPerKWh)
	out = []calcInput{{name: NameEnergyCostPerMonthUSD, label: "Energy cost per month = " + u + "s × power × hours × price",
		unit: fmt.Sprintf("USD (%d h)%s", hoursPerMonth, atMost), formula: formula, style: st.outUSD}}
	return in, out
}

// usersRows are the calculator's users-per-replica rows: for users measured by a users
// ladder one input holding the measured figure; else the think time Z, the analysis's
// throughput X and response time R at capacity (inputs) and users = X × (R + Z).
func usersRows(a *analysis.Analysis, st styles, atLeast string) []calcInput {
	c := a.Overall
	think := c.ThinkTimeS
	if !finite(think) || think < 0 {
		think = 0
	}
	if c.UsersSource == analysis.UsersMeasured {
		label := fmt.Sprintf("Users per replica (measured: users pausing %s s between requests)", loadText(think))
		return []calcInput{{name: NameUsersPerReplica, label: label, unit: "users" + atLeast, value: capacityUsers(c), style: st.inInt,
			valid: &validation{0, 1e9, true, "Users per replica: a whole number ≥ 0."}}}
	}
	users := "FLOOR(" + NameCapacityRps + "*(" + NameResponseTimeS + "+" + NameThinkTimeS + ")+0.000001,1)"
	return []calcInput{
		{name: NameThinkTimeS, label: "Think time between a user's requests Z", unit: "s", value: think, style: st.inSecs, valid: &validation{0.0, 86400.0, false, "Think time: 0 to 86,400 s."}},
		{name: NameCapacityRps, label: "Throughput per replica at capacity X (from the analysis)", unit: "req/s", value: c.ThroughputAtCapacity, style: st.inNum2, valid: &validation{0.0, 1e9, false, "Throughput: 0 or more req/s."}},
		{name: NameResponseTimeS, label: "Mean E2E at capacity R = requests in flight ÷ X (from the analysis)", unit: "s", value: responseTimeS(c), style: st.inSecs2, valid: &validation{0.0, 86400.0, false, "Response time: 0 or more seconds."}},
		{name: NameUsersPerReplica, label: "Users per replica = X × (R + Z), whole users", unit: "users" + atLeast, formula: users, style: st.outInt},
	}
}

// capitalize upper-cases a word's first letter ("machine" → "Machine").
func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
