package plan

// contextModel is the catalog model whose context length (max_model_len) bounds the
// plan's requests: the simulator's model, or for a server the catalog model named
// like target.model (case-insensitively); ok is false when the catalog has none.
func (p *Plan) contextModel() (name string, maxLen int, ok bool) {
	cat, err := p.Target.Simulator.catalog()
	if err != nil {
		return "", 0, false // reported at target.simulator.catalog
	}
	if p.Target.IsSimulator() {
		m, found := cat.Model(p.Target.Simulator.Model)
		return "the simulator's model " + m.Name, m.MaxModelLen, found && m.MaxModelLen > 0
	}
	m, found := cat.ModelFold(p.Target.Model)
	return "model " + m.Name, m.MaxModelLen, found && m.MaxModelLen > 0
}

// smallest is the least value d can draw (the fixed value, the min of a uniform or of
// a clamped normal/lognormal); ok is false when it has no lower bound above 1 that the
// plan states (an unclamped normal/lognormal, an empirical file).
func (d Dist) smallest() (v float64, ok bool) {
	switch d.Kind {
	case DistFixed:
		return d.Value, true
	case DistUniform:
		return d.Min, true
	case DistNormal, DistLognormal:
		return d.Min, d.Min > 0
	}
	return 0, false
}

// checkFits refuses a segment whose every request exceeds the context length of the
// model the catalog knows (contextModel): its smallest prompt plus its smallest output
// (max_tokens) is more than max_model_len, so the server would refuse each one (the
// simulator answers 400 context_length_exceeded).
func (p *Plan) checkFits(ps *problems, pre string, s Segment) {
	in, ok1 := s.PromptTokens.smallest()
	out, ok2 := s.OutputTokens.smallest()
	if !ok1 || !ok2 {
		return
	}
	name, maxLen, ok := p.contextModel()
	if !ok || in+out <= float64(maxLen) {
		return
	}
	ps.add(pre+"prompt_tokens", raw(s.PromptTokens.String()),
		"cannot fit: the smallest prompt (%g tokens) plus the smallest output (%g tokens) exceed %s's context length, max_model_len %d",
		in, out, name, maxLen)
}
