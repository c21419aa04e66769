package main

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/llmcap/llmcap/plan"
)

// planFlags are the one-off run flags of run, sweep and plan, named as the peers name
// them (AIPerf, vllm bench serve). Each maps onto plan override keys, as --concurrency
// does (concurrencyOverrides), so they combine with a plan file and win over it; what
// neither gives gets the plan's section defaults (plan/section_defaults.go). "" is
// "not given" for every string.
type planFlags struct {
	url, model, endpointType, apiKeyEnv string
	// requestRate is --request-rate: a rate ladder in req/s ("2,4,8") or auto.
	requestRate, arrival, burstiness string
	// isl and osl are the prompt and output lengths (plan.ParseLengthSpec).
	isl, osl         string
	duration, warmup string
	goodput          string
	// goodputGiven is whether --goodput was given, even as "" (which names no metric).
	goodputGiven      bool
	printPlan         bool
	stderr            io.Writer // where the assumed defaults are listed (the command's stderr)
	printAssumedBlock bool      // list them (run, sweep, plan; not --print-plan, whose YAML says it)
}

// planFlagCommands are the commands that load a plan and take the one-off flags.
var planFlagCommands = []string{"run", "sweep", "plan"}

// registerPlanFlags adds the one-off flags, --concurrency and --header to run, sweep
// and plan (and only to them: serve-sim, analyze, report and version take none), makes
// each of them print the resolved plan instead of running when --print-plan is given,
// and lists the assumed defaults on the command's stderr.
func registerPlanFlags(root *cobra.Command, g *globals) {
	f := &g.flags
	for _, cmd := range root.Commands() {
		if !slices.Contains(planFlagCommands, cmd.Name()) {
			continue
		}
		fs := cmd.Flags()
		fs.StringArrayVar(&g.headers, "header", nil, headerFlagUsage)
		fs.StringVar(&g.concurrency, "concurrency", "", "the concurrency ladder, e.g. 1,4,16, or auto: search for the capacity over concurrency (ladder.search)")
		fs.StringVar(&f.url, "url", "", "target server's OpenAI base URL, e.g. http://127.0.0.1:8000/v1 (target.url; simulator for the embedded one); with no -c, a one-off run from flags and defaults")
		fs.StringVarP(&f.model, "model", "m", "", "served model name sent in each request (target.model)")
		fs.StringVar(&f.endpointType, "endpoint-type", "", "chat (/v1/chat/completions) or completions (/v1/completions) (target.api)")
		fs.StringVar(&f.apiKeyEnv, "api-key-env", "", "environment variable holding the API key (target.api_key_env)")
		fs.StringVar(&f.requestRate, "request-rate", "", "an open-loop rate ladder in req/s, e.g. 2,4,8, or auto: search the capacity over rate (ladder.rate)")
		fs.StringVar(&f.arrival, "arrival", "", "open-loop arrivals: poisson, gamma or constant (ladder.arrival)")
		fs.StringVar(&f.burstiness, "burstiness", "", "gamma arrivals' shape: 1 = Poisson, < 1 burstier; implies --arrival gamma (ladder.burstiness)")
		fs.StringVar(&f.isl, "isl", "", "prompt tokens of the plan's one segment: 512 (fixed), 512±64 or 512+-64 (normal) (segments[0].prompt_tokens)")
		fs.StringVar(&f.osl, "osl", "", "output tokens (max_tokens) of the plan's one segment, as --isl (segments[0].output_tokens)")
		fs.StringVar(&f.duration, "duration", "", "measurement window per step, e.g. 30s (ladder.duration)")
		fs.StringVar(&f.warmup, "warmup", "", "warm-up per step: a duration (5s) or a request count (10); 0 for none (ladder.warmup)")
		fs.StringVar(&f.goodput, "goodput", "", `AIPerf-style SLA in ms, e.g. 'time_to_first_token:500 inter_token_latency:50' (metrics: `+
			strings.Join(plan.GoodputMetrics, ", ")+`); each bound is judged per request for goodput and at p95 for capacity (sla.goodput)`)
		fs.BoolVar(&f.printPlan, "print-plan", false, "write the resolved plan as YAML (secrets masked) to stdout and exit without running; load it back with -c")
		run := cmd.RunE
		cmd.RunE = func(c *cobra.Command, args []string) error {
			f.stderr = c.ErrOrStderr()
			f.goodputGiven = c.Flags().Changed("goodput")
			f.printAssumedBlock = !f.printPlan
			if f.printPlan {
				return g.printResolvedPlan(c)
			}
			return run(c, args)
		}
	}
}

// given reports whether some one-off flag that changes the plan is set (then
// `sweep --resume DIR` applies them to the stored plan, as it does --set).
func (f *planFlags) given() bool {
	if f.goodputGiven {
		return true
	}
	for _, v := range []string{f.url, f.model, f.endpointType, f.apiKeyEnv, f.requestRate, f.arrival, f.burstiness,
		f.isl, f.osl, f.duration, f.warmup, f.goodput} {
		if v != "" {
			return true
		}
	}
	return false
}

// overrides adds the plan overrides of the one-off flags to out (after --set and
// --concurrency, so a flag wins over a --set of the same key). Errors name the flag
// and the form it takes.
func (f *planFlags) overrides(concurrency string, out map[string]any) error {
	for key, val := range map[string]string{"target.url": f.url, "target.model": f.model} {
		if val = strings.TrimSpace(val); val != "" {
			out[key] = val
		}
	}
	if f.endpointType != "" {
		if !slices.Contains(plan.APIs, f.endpointType) {
			return fmt.Errorf("--endpoint-type %q: want %s", f.endpointType, strings.Join(plan.APIs, " or "))
		}
		out["target.api"] = f.endpointType
	}
	if f.apiKeyEnv != "" {
		out["target.api_key_env"], out["target.api_key_file"] = f.apiKeyEnv, "" // the flag replaces a file's key source
	}
	steps := []func(map[string]any) error{
		func(o map[string]any) error { return rateOverrides(f.requestRate, concurrency, o) },
		f.arrivalOverrides, f.lengthOverrides, f.windowOverrides, f.goodputOverrides,
	}
	for _, s := range steps {
		if err := s(out); err != nil {
			return err
		}
	}
	return nil
}

// rateOverrides maps --request-rate onto the ladder as concurrencyOverrides maps
// --concurrency: "auto" is a capacity search over rate, a list "2,4,8" the rate levels
// (replacing a file's levels and search); "" adds nothing. It refuses both flags at once.
func rateOverrides(flag, concurrency string, out map[string]any) error {
	flag = strings.TrimSpace(flag)
	if flag == "" {
		return nil
	}
	if strings.TrimSpace(concurrency) != "" {
		return fmt.Errorf("--request-rate and --concurrency: give one of them (a ladder has one schedule)")
	}
	out["ladder.users"] = []any{}
	if flag == "auto" {
		out["ladder.concurrency"], out["ladder.rate"] = []any{}, []any{}
		out["ladder.search.over"] = plan.SearchRate
		out["ladder.search.start"], out["ladder.search.max"] = plan.DefaultSearchStart, plan.DefaultSearchMaxRate
		return nil
	}
	var levels []any
	for _, s := range strings.Split(flag, ",") {
		r, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil || !(r > 0) || r > plan.MaxRate {
			return fmt.Errorf("--request-rate %q: want auto or a list of rates in req/s > 0, e.g. 2,4,8", flag)
		}
		levels = append(levels, r)
	}
	out["ladder.rate"], out["ladder.concurrency"] = levels, []any{}
	return nil
}

// arrivalOverrides maps --arrival and --burstiness; --burstiness alone means gamma.
func (f *planFlags) arrivalOverrides(out map[string]any) error {
	if f.arrival != "" {
		if !slices.Contains(plan.Arrivals, f.arrival) {
			return fmt.Errorf("--arrival %q: want %s", f.arrival, strings.Join(plan.Arrivals, ", "))
		}
		out["ladder.arrival"] = f.arrival
	}
	if f.burstiness == "" {
		return nil
	}
	b, err := strconv.ParseFloat(strings.TrimSpace(f.burstiness), 64)
	if err != nil || !(b > 0) || b > 1e6 {
		return fmt.Errorf("--burstiness %q: want a number > 0 (the gamma shape: 1 = Poisson, < 1 burstier)", f.burstiness)
	}
	if f.arrival != "" && f.arrival != plan.ArrivalGamma {
		return fmt.Errorf("--burstiness applies to --arrival gamma, not %s", f.arrival)
	}
	out["ladder.arrival"], out["ladder.burstiness"] = plan.ArrivalGamma, b
	return nil
}

// lengthOverrides maps --isl and --osl onto the first segment's prompt and output
// lengths; checkSegmentFlags refuses them for a plan with several segments.
func (f *planFlags) lengthOverrides(out map[string]any) error {
	for _, l := range []struct{ flag, val, key string }{
		{"--isl", f.isl, "segments[0].prompt_tokens"}, {"--osl", f.osl, "segments[0].output_tokens"},
	} {
		if l.val == "" {
			continue
		}
		d, err := plan.ParseLengthSpec(l.val)
		if err != nil {
			return fmt.Errorf("%s %w; want %s", l.flag, err, plan.LengthSpecForm)
		}
		out[l.key] = d.OverrideValue()
	}
	return nil
}

// windowOverrides maps --duration (the window) and --warmup (a duration, or a request
// count; either replaces both of a file's warm-up fields).
func (f *planFlags) windowOverrides(out map[string]any) error {
	if f.duration != "" {
		d, err := time.ParseDuration(strings.TrimSpace(f.duration))
		if err != nil || d <= 0 {
			return fmt.Errorf("--duration %q: want a duration > 0 with its unit, e.g. 30s or 2m", f.duration)
		}
		out["ladder.duration"] = d.String()
	}
	if f.warmup == "" {
		return nil
	}
	w := strings.TrimSpace(f.warmup)
	if n, err := strconv.Atoi(w); err == nil && n >= 0 {
		out["ladder.warmup.requests"], out["ladder.warmup.duration"] = n, "0s"
		return nil
	}
	d, err := time.ParseDuration(w)
	if err != nil || d < 0 {
		return fmt.Errorf("--warmup %q: want a duration such as 5s, a request count such as 10, or 0 for none", f.warmup)
	}
	out["ladder.warmup.duration"], out["ladder.warmup.requests"] = d.String(), 0
	return nil
}

// goodputOverrides maps --goodput onto sla.goodput and each bound's p95 key, so the
// flag's thresholds win over a file's bounds on the same metrics (plan.GoodputStat).
// --goodput given as "" (or spaces) names no metric and is refused, not taken for "no
// SLA" (in a plan file, sla.goodput: "" is "not given").
func (f *planFlags) goodputOverrides(out map[string]any) error {
	if f.goodput == "" && !f.goodputGiven {
		return nil
	}
	if strings.TrimSpace(f.goodput) == "" {
		return fmt.Errorf("--goodput %q names no metric: %s (leave the flag out to keep the plan's SLA)", f.goodput, plan.GoodputForm)
	}
	bounds, err := plan.ParseGoodput(f.goodput)
	if err != nil {
		return fmt.Errorf("--goodput %q: %w", f.goodput, err)
	}
	out["sla.goodput"] = f.goodput
	for _, b := range bounds {
		out["sla."+b.SLAMetric+"_ms."+plan.GoodputStat] = b.ThresholdMs
	}
	return nil
}

// loadWithFlags loads the plan at path (or, without one, from the flags and defaults)
// with the overrides ov, refuses --isl/--osl for a plan with several segments, and
// lists the assumed defaults on stderr. With neither a plan file nor a target it says
// how to give one.
func (g *globals) loadWithFlags(path string, ov map[string]any) (*plan.Plan, error) {
	if path == "" && !plan.TargetURLSet(path, ov) {
		return nil, usageErr(errors.New("no plan given: use --config FILE (e.g. -c configs/demo.yaml), " +
			"or --url URL --model NAME for a one-off run from flags (--url simulator drives the embedded simulator)"))
	}
	p, err := plan.Load(path, ov)
	if err != nil {
		return nil, err
	}
	if err := g.flags.checkSegmentFlags(p); err != nil {
		return nil, usageErr(err)
	}
	if err := g.flags.checkArrivalFlags(p); err != nil {
		return nil, usageErr(err)
	}
	if err := refuseMaskedPlanFile(p, path); err != nil {
		return nil, err
	}
	g.listAssumed(p, path, g.flags.slaSource(path, ov))
	return p, nil
}

// listAssumed lists the defaults p got on stderr (run, sweep, plan): the assumedBlock
// text, one JSON record under --log-format json, nothing under --quiet.
func (g *globals) listAssumed(p *plan.Plan, path, slaSrc string) {
	if !g.flags.printAssumedBlock || len(p.Assumed) == 0 || g.flags.stderr == nil || g.quiet {
		return
	}
	if g.v.GetString("log-format") == logFormatJSON && g.log != nil {
		g.log.Info(assumedSource(path), "defaults", assumedLines(p, slaSrc))
		return
	}
	fmt.Fprint(g.flags.stderr, assumedBlock(p, path, slaSrc))
}

// checkSegmentFlags refuses --isl and --osl for a plan whose segments are not one
// synthetic segment: the lengths of a mix are the plan file's to give.
func (f *planFlags) checkSegmentFlags(p *plan.Plan) error {
	if f.isl == "" && f.osl == "" {
		return nil
	}
	flag := "--isl"
	if f.isl == "" {
		flag = "--osl"
	}
	switch {
	case len(p.Segments) > 1:
		names := make([]string, len(p.Segments))
		for i, s := range p.Segments {
			names[i] = s.Name
		}
		return fmt.Errorf("%s: the plan has %d segments (%s); --isl and --osl set the lengths of a plan's one segment: "+
			"set each segment's with --set segments[N].prompt_tokens={dist: fixed, value: 512} or in the plan file",
			flag, len(p.Segments), strings.Join(names, ", "))
	case len(p.Segments) == 1 && p.Segments[0].Trace != nil:
		return fmt.Errorf("%s: segment %q replays a trace, whose requests carry their own lengths (use trace.prompt_scale/output_scale)",
			flag, p.Segments[0].Name)
	}
	return nil
}

// checkArrivalFlags refuses --arrival and --burstiness for a plan without an open-loop
// rate schedule (ladder.rate or a search over rate): a concurrency or users ladder
// sends each request when the previous one ends, so they would be ignored.
func (f *planFlags) checkArrivalFlags(p *plan.Plan) error {
	if f.arrival == "" && f.burstiness == "" {
		return nil
	}
	l := p.Ladder
	if len(l.Rate) > 0 || (l.Search != nil && l.Search.Over == plan.SearchRate) {
		return nil
	}
	flag := "--arrival"
	if f.arrival == "" {
		flag = "--burstiness"
	}
	return fmt.Errorf("%s shapes open-loop arrivals: give a rate ladder with --request-rate (e.g. 2,4,8 or auto); "+
		"the plan's %s ladder sends each request when the previous one ends", flag, ladderKind(l))
}

// ladderKind names a closed-loop ladder's schedule for checkArrivalFlags.
func ladderKind(l plan.Ladder) string {
	switch {
	case l.Search != nil:
		return "capacity search over " + l.Search.Over
	case len(l.Users) > 0:
		return "users"
	}
	return "concurrency"
}

// assumedSource says where the assumed defaults fill in: the plan at path, or the
// flags when there is no plan file (path "").
func assumedSource(path string) string {
	if path == "" {
		return "no plan file: defaults for what the flags leave out"
	}
	return "defaults for what plan " + path + " leaves out"
}

// assumedLines are the defaults the plan got; when the SLA is not among them, a last
// line states the SLA in use and slaSrc, where it came from, so the list always says
// what the run is judged against.
func assumedLines(p *plan.Plan, slaSrc string) []string {
	lines := append([]string(nil), p.Assumed...)
	if !slices.ContainsFunc(lines, func(a string) bool { return strings.HasPrefix(a, "sla:") }) {
		lines = append(lines, fmt.Sprintf("SLA: %s (from %s)", slaText(p), slaSrc))
	}
	return lines
}

// assumedBlock is the short list of defaults the plan got (assumedLines), for stderr.
func assumedBlock(p *plan.Plan, path, slaSrc string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (--print-plan writes the whole plan, a file to start from):\n", assumedSource(path))
	for _, a := range assumedLines(p, slaSrc) {
		fmt.Fprintf(&b, "  %s\n", a)
	}
	return b.String()
}

// slaText is p's SLA in one line: "TTFT p95 ≤ 500 ms, ITL p95 ≤ 50 ms, error rate ≤ 1%"
// (plan.Plan.Constraints order), or "no latency bound, error rate ≤ 1%".
func slaText(p *plan.Plan) string {
	var parts []string
	for _, c := range p.Constraints() {
		parts = append(parts, fmt.Sprintf("%s %s ≤ %g ms", strings.ToUpper(c.Metric), c.Stat, c.ThresholdMs))
	}
	if len(parts) == 0 {
		parts = append(parts, "no latency bound")
	}
	return strings.Join(append(parts, fmt.Sprintf("error rate ≤ %g%%", p.SLA.MaxErrorRate*100)), ", ")
}

// slaSource names where a plan's SLA came from when it was not assumed: --goodput,
// --set (an sla.* override), the plan file path, or the environment (LLMCAP_SLA_*).
func (f *planFlags) slaSource(path string, ov map[string]any) string {
	if f.goodput != "" {
		return "--goodput"
	}
	for k := range ov {
		if strings.HasPrefix(k, "sla.") {
			return "--set"
		}
	}
	if path != "" {
		return path
	}
	return "the environment"
}
