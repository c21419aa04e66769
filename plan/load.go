package plan

import "errors"

// Load reads the YAML plan at path, applies overrides (flag/env values keyed by dotted
// path, which win over the file), fills defaults, resolves the API key and validates.
// Errors name the field path, the bad value and what is allowed; YAML syntax errors
// carry the line.
func Load(path string, overrides map[string]any) (*Plan, error) {
	return nil, errors.New("plan.Load: not implemented yet")
}
