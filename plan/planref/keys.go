// Package planref is the plan's reference: every plan key (its dotted path, type,
// default, allowed values, description and an example) read from the plan package
// itself, rendered as docs/config.md (Markdown) and as a JSON Schema (draft 2020-12)
// for editor completion (docs/plan.schema.json, `llmcap plan --schema`).
//
// Sources, one place for each fact: the keys and types are plan.Plan's fields
// (mapstructure tags), walked by reflection; descriptions are the fields' doc comments
// and allowed values the plan's "X are the accepted T.F values" lists, both read from
// the plan package's source by `go generate ./plan` into docs_gen.go; defaults are
// plan.KeyDefaults; examples come from configs/*.yaml, else the small table in
// examples.go. A new field of the plan appears after `go generate ./plan`; the tests
// fail while docs_gen.go, docs/config.md or docs/plan.schema.json is stale, and while
// a key has no description.
package planref

import (
	"reflect"
	"regexp"
	"strings"
	"time"

	"github.com/llmcap/llmcap/plan"
	"github.com/llmcap/llmcap/plan/planref/internal/godoc"
)

// docs is what the reference takes from the plan package's source (docs_gen.go).
type docs struct {
	fields  map[string]string   // "Type.Field" → the field's description
	types   map[string]string   // type → its doc comment
	enums   map[string][]string // "Type.Field" → allowed values (of each item, for a list)
	mapKeys map[string][]string // "Type.Field" of a map → its allowed keys
	values  map[string]any      // a plan constant or variable a description names → its value
}

// Key is one plan key.
type Key struct {
	// Path is the dotted YAML key; list items are written "[]":
	// "segments[].prompt_tokens.dist".
	Path string
	// Name is the last part of Path ("dist").
	Name string
	// Type is the key's type in the reference's words: "string", "integer",
	// "number", "boolean", "duration", "list of integers", "map of number",
	// "section", "list of sections".
	Type string
	// Section reports a key that holds other keys (a struct, or a list of them).
	Section bool
	// Optional reports a section that is absent unless written (a pointer).
	Optional bool
	// Description is the field's doc comment (or its group's, type's or section's).
	Description string
	// Default is the value Load fills in; HasDefault is false when there is none
	// besides the type's zero value. Derived reports a default that depends on
	// other keys (the description says how).
	Default    any
	HasDefault bool
	Derived    bool
	// Allowed are the allowed values (of each item, for a list); AllowedKeys the
	// allowed keys of a map.
	Allowed     []string
	AllowedKeys []string
	// Depth is the number of sections above the key (0 for top-level keys).
	Depth int

	goType reflect.Type // the field's type, pointers removed
	goID   string       // "Type.Field"
}

var durationType = reflect.TypeOf(time.Duration(0))

// Keys lists every plan key in schema order (a section before the keys it holds).
func Keys() []Key { return keysFrom(sourceDocs) }

func keysFrom(d docs) []Key {
	defaults, derived := plan.KeyDefaults()
	var keys []Key
	var walk func(t reflect.Type, prefix, holderDoc string, depth int)
	walk = func(t reflect.Type, prefix, holderDoc string, depth int) {
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			tag, _, _ := strings.Cut(f.Tag.Get("mapstructure"), ",")
			if tag == "" || tag == "-" {
				continue
			}
			path := tag
			if prefix != "" {
				path = prefix + "." + tag
			}
			ft, optional := f.Type, false
			if ft.Kind() == reflect.Pointer {
				ft, optional = ft.Elem(), ft.Elem().Kind() == reflect.Struct
			}
			id := t.Name() + "." + f.Name
			k := Key{Path: path, Name: tag, Type: typeName(ft), Optional: optional,
				Allowed: d.enums[id], AllowedKeys: d.mapKeys[id], Depth: depth, goType: ft, goID: id}
			k.Description = describe(d, t, f.Name, tag, holderDoc)
			k.Default, k.HasDefault = defaults[path]
			k.Derived = derived[path]
			elem := ft
			if ft.Kind() == reflect.Slice {
				elem = ft.Elem()
			}
			if elem.Kind() == reflect.Struct && elem != durationType {
				k.Section = true
				typeDoc := d.types[elem.Name()]
				switch {
				case k.Description == "":
					k.Description = typeDoc
				case typeDoc != "" && !strings.Contains(k.Description, typeDoc):
					k.Description += "\n" + typeDoc
				}
				keys = append(keys, k)
				sub := path
				if ft.Kind() == reflect.Slice {
					sub += "[]"
				}
				walk(elem, sub, d.fields[id], depth+1)
				continue
			}
			keys = append(keys, k)
		}
	}
	walk(reflect.TypeOf(plan.Plan{}), "", "", 0)
	yamlNames(keys)
	writeValues(keys, d.values)
	return keys
}

// valueNameRE matches a Go identifier not after a dot.
var valueNameRE = regexp.MustCompile(`(^|[^.\w])([A-Z]\w*)\b`)

// writeValues writes, in descriptions, the values of the plan constants and variables
// they name: "(DefaultSessionHeader)" becomes "(`X-Session-Id`)", a list becomes its
// items.
func writeValues(keys []Key, values map[string]any) {
	for i := range keys {
		keys[i].Description = valueNameRE.ReplaceAllStringFunc(keys[i].Description, func(m string) string {
			sub := valueNameRE.FindStringSubmatch(m)
			v, ok := values[sub[2]]
			if !ok {
				return m
			}
			if l, isList := v.([]string); isList {
				return sub[1] + codeList(l)
			}
			return sub[1] + "`" + valueText(v) + "`"
		})
	}
}

// typeFieldRE matches a Go reference to a field, "SLA.ThinkTime"; goNameRE a bare
// Go field name ("ConnectTimeout") not after a dot.
var (
	typeFieldRE = regexp.MustCompile(`\b([A-Z][A-Za-z]*)\.([A-Z][A-Za-z]*)\b`)
	goNameRE    = regexp.MustCompile(`(^|[^.\w])([A-Z][a-z]+[A-Z][A-Za-z]*|[A-Z][a-z]+)\b`)
)

// yamlNames rewrites the Go names in descriptions as the keys a plan writes:
// "SLA.ThinkTime" as `sla.think_time` (when the type sits at one path), a field name
// such as "ConnectTimeout" as `connect_timeout` (when every field of that name has
// that key).
func yamlNames(keys []Key) {
	typePaths := map[string]map[string]bool{} // Go type → the paths it sits at
	fieldTag := map[string]string{}           // "Type.Field" → tag
	nameTag := map[string]string{}            // Go field name → tag, "" when ambiguous
	for _, k := range keys {
		parent, _, _ := strings.Cut(k.goID, ".")
		prefix := strings.TrimSuffix(strings.TrimSuffix(k.Path, k.Name), ".")
		if typePaths[parent] == nil {
			typePaths[parent] = map[string]bool{}
		}
		typePaths[parent][strings.TrimSuffix(prefix, "[]")] = true
		fieldTag[k.goID] = k.Name
		goName := strings.TrimPrefix(k.goID, parent+".")
		if t, seen := nameTag[goName]; seen && t != k.Name {
			nameTag[goName] = ""
		} else {
			nameTag[goName] = k.Name
		}
	}
	for i := range keys {
		d := typeFieldRE.ReplaceAllStringFunc(keys[i].Description, func(m string) string {
			sub := typeFieldRE.FindStringSubmatch(m)
			tag, ok := fieldTag[sub[1]+"."+sub[2]]
			if !ok || len(typePaths[sub[1]]) != 1 {
				return m
			}
			for p := range typePaths[sub[1]] {
				if p != "" {
					tag = p + "." + tag
				}
			}
			return "`" + tag + "`"
		})
		keys[i].Description = goNameRE.ReplaceAllStringFunc(d, func(m string) string {
			sub := goNameRE.FindStringSubmatch(m)
			if tag := nameTag[sub[2]]; tag != "" {
				return sub[1] + "`" + tag + "`"
			}
			return m
		})
	}
}

// describe is a field's description: its own (or its group's) doc, else its type's doc
// or its section's doc when either names the field.
func describe(d docs, t reflect.Type, goName, tag, holderDoc string) string {
	if s := d.fields[t.Name()+"."+goName]; s != "" {
		return s
	}
	if s := d.types[t.Name()]; godoc.Mentions(s, goName, tag) {
		return s
	}
	if godoc.Mentions(holderDoc, goName, tag) {
		return holderDoc
	}
	return ""
}

// typeName is a type in the reference's words.
func typeName(t reflect.Type) string {
	if t == durationType {
		return "duration"
	}
	switch t.Kind() {
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "integer"
	case reflect.Float32, reflect.Float64:
		return "number"
	case reflect.Struct:
		return "section"
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Struct && t.Elem() != durationType {
			return "list of sections"
		}
		return "list of " + plural(typeName(t.Elem()))
	case reflect.Map:
		if t.Elem().Kind() == reflect.Interface {
			return "map of any"
		}
		return "map of " + typeName(t.Elem())
	case reflect.Interface:
		return "any"
	}
	return t.Kind().String()
}

func plural(s string) string {
	if strings.HasSuffix(s, "s") {
		return s
	}
	return s + "s"
}
