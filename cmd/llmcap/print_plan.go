package main

import (
	"bytes"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"go.yaml.in/yaml/v3"

	"github.com/llmcap/llmcap/plan"
	"github.com/llmcap/llmcap/redact"
)

// printResolvedPlan is --print-plan: the plan resolved from -c, the flags and the
// defaults, as YAML with its secrets masked (plan.Plan.Redacted) on stdout, headed by
// comments naming the defaults it took. Loading it back with -c gives the same plan
// (the defaults are written out, so none is assumed again).
func (g *globals) printResolvedPlan(cmd *cobra.Command) error {
	p, err := g.loadPlan()
	if err != nil {
		return err
	}
	b, err := planYAML(p, p.MaskedFields())
	if err != nil {
		return err
	}
	out := redact.NewWriter(cmd.OutOrStdout(), p.Redactor())
	_, err = out.Write(b)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("--print-plan: %w", err)
	}
	return nil
}

// planYAML is p redacted as YAML, with a comment header listing p.Assumed and the
// masked fields (plan.Plan.MaskedFields), which hold redact.Mask instead of a secret.
func planYAML(p *plan.Plan, masked []string) ([]byte, error) {
	var doc yaml.Node
	if err := doc.Encode(p.Redacted()); err != nil {
		return nil, fmt.Errorf("--print-plan: %w", err)
	}
	dropInertDefaults(&doc, p)
	var body bytes.Buffer
	enc := yaml.NewEncoder(&body)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		return nil, fmt.Errorf("--print-plan: %w", err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("--print-plan: %w", err)
	}
	var b strings.Builder
	b.WriteString("# llmcap plan, resolved (llmcap run -c THIS_FILE runs it); secrets are masked\n")
	if len(p.Assumed) > 0 {
		b.WriteString("# defaults filled in:\n")
		for _, a := range p.Assumed {
			b.WriteString("#   " + a + "\n")
		}
	}
	for _, f := range masked {
		b.WriteString("# masked: " + f + " holds " + redact.Mask + " for a secret: put it back, or write ${NAME} " +
			"to take it from the environment variable NAME, before running this file\n")
	}
	b.Write(body.Bytes())
	return []byte(b.String()), nil
}

// dropInertDefaults removes from the printed plan doc (a YAML mapping node of p) the
// settings that do nothing for p while they hold their defaults, so the file shows what
// the run uses: target.simulator for a real server's URL, and ladder.arrival and
// ladder.burstiness for a ladder without an open-loop rate schedule (ladder.rate or a
// search over rate). Loading the file back fills the same defaults, so it gives an
// equal plan; a setting changed from its default is kept.
func dropInertDefaults(doc *yaml.Node, p *plan.Plan) {
	def := plan.Default()
	if !p.Target.IsSimulator() && reflect.DeepEqual(p.Target.Simulator, def.Target.Simulator) {
		dropKeys(mappingValue(doc, "target"), "simulator")
	}
	l := p.Ladder
	openLoop := len(l.Rate) > 0 || (l.Search != nil && l.Search.Over == plan.SearchRate)
	if !openLoop && l.Arrival == def.Ladder.Arrival && l.Burstiness == def.Ladder.Burstiness {
		dropKeys(mappingValue(doc, "ladder"), "arrival", "burstiness")
	}
}

// mappingValue is the value node of key in the mapping node m, nil when m is not a
// mapping or has no such key.
func mappingValue(m *yaml.Node, key string) *yaml.Node {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

// dropKeys removes keys and their values from the mapping node m (nil: nothing).
func dropKeys(m *yaml.Node, keys ...string) {
	if m == nil || m.Kind != yaml.MappingNode {
		return
	}
	kept := m.Content[:0]
	for i := 0; i+1 < len(m.Content); i += 2 {
		if !slices.Contains(keys, m.Content[i].Value) {
			kept = append(kept, m.Content[i], m.Content[i+1])
		}
	}
	m.Content = kept
}

// refuseMaskedPlanFile refuses a plan file whose target fields still hold redact.Mask where a
// secret was (a --print-plan output or a run.json plan): run, it would send the mask
// as a header, password or key. Only target.* fields carry secrets; the mask elsewhere
// (a description) is text.
func refuseMaskedPlanFile(p *plan.Plan, path string) error {
	if path == "" {
		return nil
	}
	var held []string
	for _, f := range p.StillMasked(nil) {
		if strings.HasPrefix(f, "target.") {
			held = append(held, f)
		}
	}
	if len(held) == 0 {
		return nil
	}
	return fmt.Errorf("%s: %s holds %s where a secret was masked (a --print-plan or run.json plan): "+
		"put the secret back, or write ${NAME} to take it from the environment variable NAME", path, strings.Join(held, ", "), redact.Mask)
}
