package planref

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/invopop/jsonschema"

	"github.com/llmcap/llmcap/plan"
)

// numberText is a decimal number as JSON writes it.
func numberText(v float64) json.Number { return json.Number(strconv.FormatFloat(v, 'f', -1, 64)) }

// setBound writes b on a number schema.
func setBound(s *jsonschema.Schema, b plan.Bound) {
	switch {
	case b.HasMin && b.MinExclusive:
		s.ExclusiveMinimum = numberText(b.Min)
	case b.HasMin:
		s.Minimum = numberText(b.Min)
	}
	switch {
	case b.HasMax && b.MaxExclusive:
		s.ExclusiveMaximum = numberText(b.Max)
	case b.HasMax:
		s.Maximum = numberText(b.Max)
	}
}

// addBounds writes plan.KeyBounds on the schema: on a number key, on each item of a
// list of numbers, on each value of a map of numbers. Run it before annotate, which
// wraps lists and copies map values to their allowed keys.
func addBounds(s *jsonschema.Schema) error {
	for path, b := range plan.KeyBounds() {
		node, err := lookup(s, path)
		if err != nil {
			return err
		}
		switch {
		case node.Items != nil:
			node = node.Items
		case node.AdditionalProperties != nil && node.AdditionalProperties != jsonschema.FalseSchema:
			node = node.AdditionalProperties
		}
		setBound(node, b)
	}
	return nil
}

// Short-form patterns (ECMA-262 and RE2 alike): a token length as plan.ParseLengthSpec
// reads it, a seconds distribution, a ParseDist spec, and a warm-up's request count.
const (
	wholePattern   = `[0-9]+(\.0*)?`
	decimalPattern = `([0-9]+(\.[0-9]*)?|\.[0-9]+)`
	countPattern   = `^\s*[0-9]+\s*$`
)

// spreadPattern matches mean, or mean±sd / mean+-sd, of mean's pattern.
func spreadPattern(mean string) string {
	return `^\s*` + mean + `\s*((±|\+-)\s*` + decimalPattern + `\s*)?$`
}

// distSpecPattern matches a ParseDist spec, "uniform:min=16,max=48".
func distSpecPattern() string { return `^\s*(` + strings.Join(plan.DistKinds, "|") + `):.+$` }

// addShortForms lets each distribution and ladder.warmup take its short forms
// (plan/short_forms.go) beside the mapping: oneOf the mapping, a number and a string.
// Run it after annotate (it moves the mapping under oneOf).
func addShortForms(s *jsonschema.Schema) error {
	bounds := plan.KeyBounds()
	tokens, seconds := plan.DistPaths()
	for _, group := range []struct {
		paths []string
		mean  string
		what  string
	}{{tokens, wholePattern, "tokens"}, {seconds, decimalPattern, "seconds"}} {
		for _, path := range group.paths {
			node, err := lookup(s, path)
			if err != nil {
				return err
			}
			num := &jsonschema.Schema{Type: "number", Description: "fixed at this many " + group.what}
			setBound(num, plan.Bound{Min: 0, HasMin: true, MinExclusive: group.what == "tokens"})
			setBound(num, bounds[path+".value"])
			short := &jsonschema.Schema{Type: "string", Description: "mean±sd (normal), a number (fixed) or KIND:key=value,...",
				AnyOf: []*jsonschema.Schema{{Pattern: spreadPattern(group.mean)}, {Pattern: distSpecPattern()}}}
			wrap(node, num, short)
		}
	}
	node, err := lookup(s, "ladder.warmup")
	if err != nil {
		return err
	}
	if _, ok := bounds["ladder.warmup.requests"]; !ok {
		return fmt.Errorf("plan schema: no bound for ladder.warmup.requests")
	}
	count := &jsonschema.Schema{Type: "integer", Description: "requests"}
	setBound(count, bounds["ladder.warmup.requests"])
	text := &jsonschema.Schema{Type: "string", Description: "a duration, or a request count",
		AnyOf: []*jsonschema.Schema{{Pattern: durationPattern}, {Pattern: countPattern}}}
	wrap(node, count, text)
	return nil
}

// wrap makes node oneOf its mapping and the other forms, keeping its description and
// default outside.
func wrap(node *jsonschema.Schema, forms ...*jsonschema.Schema) {
	mapping := *node
	mapping.Description, mapping.Default = "", nil
	*node = jsonschema.Schema{Description: node.Description, Default: node.Default,
		OneOf: append([]*jsonschema.Schema{&mapping}, forms...)}
}

// urlPattern matches target.url and a metrics URL that Validate accepts: an http(s)
// URL with a host and, when it has one, a port that plan.PortPattern accepts.
func urlPattern() string {
	port := strings.TrimSuffix(strings.TrimPrefix(plan.PortPattern, "^"), "$")
	return `^[hH][tT][tT][pP][sS]?://([^/?#@]*@)?(\[[^\]/]+\]|[^/?#:@\[\]]+)(:` + port + `)?([/?#].*)?$`
}

// addPatterns writes the string patterns of the keys Validate parses: sla.goodput
// (plan.GoodputPattern), target.url (simulator, or a URL) and target.metrics_urls.
func addPatterns(s *jsonschema.Schema) error {
	for path, pattern := range map[string]string{
		"sla.goodput":         plan.GoodputPattern(),
		"target.url":          `^(` + plan.TargetSimulator + `|)$|` + urlPattern(),
		"target.metrics_urls": urlPattern(),
	} {
		node, err := lookup(s, path)
		if err != nil {
			return err
		}
		if node.Items != nil {
			node = node.Items
		}
		node.Pattern = pattern
	}
	return nil
}
