package planref

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/invopop/jsonschema"

	"github.com/llmcap/llmcap/plan"
)

// SchemaID is the plan schema's $id.
const SchemaID = "https://github.com/llmcap/llmcap/docs/plan.schema.json"

// durationPattern matches a Go duration string ≥ 0 as time.ParseDuration reads it
// ("30s", "1m30s", "1.5h", "0"): no duration of a plan may be negative (plan's
// durationRange).
const durationPattern = `^\+?(0|(([0-9]+(\.[0-9]*)?|\.[0-9]+)(ns|us|µs|μs|ms|s|m|h))+)$`

// JSONSchema is the plan's JSON Schema (draft 2020-12), indented, ending in a newline:
// every key with its description, default and allowed values; unknown keys are
// refused, as Load refuses them. Durations are strings ("30s") or 0; lists of scalars
// also take a comma-separated string, as Load does. Numbers carry plan.KeyBounds,
// sla.goodput and the URLs their patterns, and distributions and ladder.warmup their
// short forms (oneOf the mapping, a number, a string).
func JSONSchema() ([]byte, error) { return jsonSchema(Keys()) }

func jsonSchema(keys []Key) ([]byte, error) {
	r := jsonschema.Reflector{
		FieldNameTag:               "mapstructure",
		DoNotReference:             true,
		RequiredFromJSONSchemaTags: true,
		Anonymous:                  true,
		Mapper: func(t reflect.Type) *jsonschema.Schema {
			if t == durationType {
				return durationSchema()
			}
			return nil
		},
	}
	s := r.Reflect(&plan.Plan{})
	s.ID = SchemaID
	s.Title = "llmcap plan"
	s.Description = "A benchmark plan for llmcap (docs/config.md). Generated from the plan " +
		"package by go generate ./plan; do not edit."
	if err := addBounds(s); err != nil {
		return nil, err
	}
	if err := addPatterns(s); err != nil {
		return nil, err
	}
	for _, k := range keys {
		node, err := lookup(s, k.Path)
		if err != nil {
			return nil, err
		}
		annotate(node, k)
	}
	if err := addShortForms(s); err != nil {
		return nil, err
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		return nil, fmt.Errorf("encode plan schema: %w", err)
	}
	return b.Bytes(), nil
}

func durationSchema() *jsonschema.Schema {
	return &jsonschema.Schema{AnyOf: []*jsonschema.Schema{
		{Type: "string", Pattern: durationPattern},
		{Type: "integer", Const: 0},
	}}
}

// lookup finds the schema of a key path ("segments[].prompt_tokens.dist").
func lookup(s *jsonschema.Schema, path string) (*jsonschema.Schema, error) {
	cur := s
	for _, part := range strings.Split(path, ".") {
		name, items := strings.CutSuffix(part, "[]")
		if cur.Properties == nil {
			return nil, fmt.Errorf("plan schema: %s: no properties at %q", path, part)
		}
		next, ok := cur.Properties.Get(name)
		if !ok {
			return nil, fmt.Errorf("plan schema: %s: no property %q", path, name)
		}
		cur = next
		if items {
			cur = cur.Items
		}
	}
	return cur, nil
}

// annotate adds a key's description, default and allowed values to its schema, and
// the comma-string form to a list of scalars.
func annotate(s *jsonschema.Schema, k Key) {
	s.Description = k.Description
	if k.HasDefault && !k.Derived {
		s.Default = jsonValue(k.Default)
	}
	switch {
	case len(k.Allowed) > 0 && s.Items != nil:
		s.Items.Enum = anys(k.Allowed)
	case len(k.Allowed) > 0:
		s.Enum = anys(k.Allowed)
	}
	if len(k.AllowedKeys) > 0 && s.AdditionalProperties != nil {
		s.Properties = jsonschema.NewProperties()
		for _, key := range k.AllowedKeys {
			s.Properties.Set(key, s.AdditionalProperties)
		}
		s.AdditionalProperties = jsonschema.FalseSchema
	}
	if s.Type == "array" && !k.Section {
		list := *s
		list.Description, list.Default = "", nil
		*s = jsonschema.Schema{Description: k.Description, Default: s.Default,
			AnyOf: []*jsonschema.Schema{&list, {Type: "string", Description: "comma-separated items"}}}
	}
}

// jsonValue is a default as the plan file writes it: durations as strings.
func jsonValue(v any) any {
	if d, ok := v.(time.Duration); ok {
		return d.String()
	}
	return v
}

func anys(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}
