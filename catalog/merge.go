package catalog

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Merge applies a catalog document (configs/catalog.yaml's schema) on top of c. An
// entry whose name c already has updates only the fields the document sets (so
// "{name: H200, price_usd_per_hour: 3.5}" prices the embedded H200 and keeps its
// specs); an entry with a new name is added. The schema is strict: the top level holds
// only gpus and models, every entry needs a name, and an unknown field or a value of
// the wrong type is an error naming file, the entry (e.g. gpus[2] "X1") and the
// field. Values are checked when an entry is used (GPU.Validate, Model.Validate), so
// a catalog may sketch entries it does not run. On error c is left unchanged.
func (c *Catalog) Merge(data []byte, file string) error {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return fmt.Errorf("catalog %s: %w", file, err)
	}
	if len(doc.Content) == 0 {
		return nil // an empty document
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return fmt.Errorf("catalog %s: line %d: want a mapping with gpus and models", file, root.Line)
	}
	next := c.clone()
	for i := 0; i+1 < len(root.Content); i += 2 {
		key, val := root.Content[i], root.Content[i+1]
		var err error
		switch key.Value {
		case "gpus":
			next.GPUs, err = mergeSection(next.GPUs, val, file, "gpus")
		case "models":
			next.Models, err = mergeSection(next.Models, val, file, "models")
		default:
			err = fmt.Errorf("catalog %s: line %d: unknown section %q (known: gpus, models)", file, key.Line, key.Value)
		}
		if err != nil {
			return err
		}
	}
	*c = *next
	return nil
}

// mergeSection applies the entries of one section (a YAML sequence of mappings) to list.
func mergeSection[T interface {
	GPU | Model
	entryName() string
}](list []T, seq *yaml.Node, file, section string) ([]T, error) {
	if seq.Tag == "!!null" {
		return list, nil
	}
	if seq.Kind != yaml.SequenceNode {
		return nil, fmt.Errorf("catalog %s: line %d: %s must be a list of entries", file, seq.Line, section)
	}
	for i, item := range seq.Content {
		name, err := entryNameOf(item)
		if err != nil {
			return nil, fmt.Errorf("catalog %s: %s[%d] (line %d): %w", file, section, i, item.Line, err)
		}
		at := fmt.Sprintf("%s[%d] %q", section, i, name)
		k := slices.IndexFunc(list, func(e T) bool { return e.entryName() == name })
		var e T
		if k >= 0 {
			e = list[k]
		}
		if err := decodeFields(item, reflect.ValueOf(&e).Elem(), file); err != nil {
			return nil, fmt.Errorf("catalog %s: %s: %w", file, at, err)
		}
		if k >= 0 {
			list[k] = e
		} else {
			list = append(list, e)
		}
	}
	return list, nil
}

// entryNameOf returns the name field of an entry mapping; an error when it is missing.
func entryNameOf(item *yaml.Node) (string, error) {
	if item.Kind != yaml.MappingNode {
		return "", errors.New("must be a mapping of fields")
	}
	for i := 0; i+1 < len(item.Content); i += 2 {
		if item.Content[i].Value == "name" {
			v := item.Content[i+1]
			if v.Kind != yaml.ScalarNode || v.Value == "" {
				return "", errors.New("field name must be a non-empty string")
			}
			return v.Value, nil
		}
	}
	return "", errors.New("field name is missing")
}

// decodeFields decodes each key of item into the struct field v with that yaml tag and
// records file in v's File field; unknown keys and mistyped values are errors naming
// the field and its line.
func decodeFields(item *yaml.Node, v reflect.Value, file string) error {
	fields := yamlFields(v.Type())
	for i := 0; i+1 < len(item.Content); i += 2 {
		key, val := item.Content[i], item.Content[i+1]
		idx, ok := fields[key.Value]
		if !ok {
			return fmt.Errorf("line %d: unknown field %q (known: %s)", key.Line, key.Value, strings.Join(fieldNames(v.Type()), ", "))
		}
		f := v.Field(idx)
		f.SetZero() // a null value sets the field to zero
		if err := val.Decode(f.Addr().Interface()); err != nil {
			return fmt.Errorf("field %s: %s", key.Value, yamlErrorText(err))
		}
	}
	v.FieldByName("File").SetString(file)
	return nil
}

// yamlFields maps each yaml tag name of struct type t to its field index ("-" left out).
func yamlFields(t reflect.Type) map[string]int {
	out := map[string]int{}
	for i := range t.NumField() {
		if name := yamlName(t.Field(i)); name != "" {
			out[name] = i
		}
	}
	return out
}

// fieldNames lists the yaml tag names of struct type t in field order.
func fieldNames(t reflect.Type) []string {
	var out []string
	for i := range t.NumField() {
		if name := yamlName(t.Field(i)); name != "" {
			out = append(out, name)
		}
	}
	return out
}

// yamlName is a struct field's yaml key, "" for a field the catalog file does not set.
func yamlName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
	if name == "-" {
		return ""
	}
	return name
}

// yamlErrorText flattens a yaml.TypeError's lines ("line 5: cannot unmarshal ...").
func yamlErrorText(err error) string {
	var te *yaml.TypeError
	if errors.As(err, &te) {
		return strings.Join(te.Errors, "; ")
	}
	return err.Error()
}
