// Package godoc reads the plan package's source for the reference: each struct field's
// doc comment and each type's doc comment (go/ast, go/doc), and which exported []string
// variables list a field's allowed values ("APIs are the accepted Target.API values.").
// It renders them as the Go file planref compiles in (docs_gen.go), so the reference and
// `llmcap plan --schema` carry the comments without the source at run time.
package godoc

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/doc"
	"go/format"
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// root is the type of a whole plan.
const root = "Plan"

// Source is what the reference takes from the plan package's source.
type Source struct {
	// Fields maps "Type.Field" (Go names) to the field's description: its own doc or
	// line comment, else the doc of an earlier field of its group (no blank line
	// between) that names it, as in "Duration and/or Requests bound the window".
	Fields map[string]string
	// Types maps a type name to its doc comment.
	Types map[string]string
	// EnumVars maps "Type.Field" to the plan variable listing its allowed values.
	EnumVars map[string]string
	// MapKeyEnums maps "Type.Field" of a map keyed by Percentile to the variable
	// listing the allowed keys (Stats).
	MapKeyEnums map[string]string
	// Values are the exported constants and variables of the plan package that the
	// kept descriptions name ("Default DefaultIdleTimeout"): the reference writes their
	// values in place of the Go names.
	Values []string

	// exported are the package's exported constant and variable names.
	exported map[string]bool
	// refs maps a struct type to the plan types its keyed fields hold.
	refs map[string][]string
}

// enumDocRE matches the doc of a variable listing a field's allowed values.
var enumDocRE = regexp.MustCompile(`^(\w+) are the accepted (\w+)\.(\w+) values`)

// percentileKeys is the variable listing the statistics a map keyed by Percentile takes.
const percentileKeys = "Stats"

// Parse reads the non-test Go files of the package in dir.
func Parse(dir string) (*Source, error) {
	fset := token.NewFileSet()
	notTest := func(fi fs.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }
	pkgs, err := parser.ParseDir(fset, dir, notTest, parser.ParseComments)
	if err != nil {
		return nil, fmt.Errorf("parse %s: %w", dir, err)
	}
	src := &Source{Fields: map[string]string{}, Types: map[string]string{},
		EnumVars: map[string]string{}, MapKeyEnums: map[string]string{}, refs: map[string][]string{},
		exported: map[string]bool{}}
	for name, pkg := range pkgs {
		if strings.HasSuffix(name, "_test") {
			continue
		}
		for _, f := range pkg.Files {
			src.addFile(fset, f)
		}
	}
	if _, ok := src.Types[root]; !ok {
		return nil, fmt.Errorf("parse %s: no type %s", dir, root)
	}
	src.keepReachable()
	src.Values = src.namedValues()
	return src, nil
}

func (s *Source) addFile(fset *token.FileSet, f *ast.File) {
	for _, decl := range f.Decls {
		gd, ok := decl.(*ast.GenDecl)
		if !ok {
			continue
		}
		for _, spec := range gd.Specs {
			switch sp := spec.(type) {
			case *ast.TypeSpec:
				d := sp.Doc
				if d == nil && len(gd.Specs) == 1 {
					d = gd.Doc
				}
				if st, ok := sp.Type.(*ast.StructType); ok {
					s.Types[sp.Name.Name] = text(d)
					s.addStruct(fset, sp.Name.Name, st)
				}
			case *ast.ValueSpec:
				d := sp.Doc
				if d == nil && len(gd.Specs) == 1 {
					d = gd.Doc
				}
				s.addEnumVar(sp, d)
				for _, n := range sp.Names {
					if n.IsExported() {
						s.exported[n.Name] = true
					}
				}
			}
		}
	}
}

// namedValues are the exported constants and variables the kept field and type
// descriptions name as whole words, sorted.
func (s *Source) namedValues() []string {
	var out []string
	for name := range s.exported {
		for _, m := range []map[string]string{s.Fields, s.Types} {
			if slices.ContainsFunc(slices.Collect(maps.Values(m)), func(d string) bool { return mentions(d, name) }) {
				out = append(out, name)
				break
			}
		}
	}
	slices.Sort(out)
	return out
}

// addEnumVar records a variable whose doc says it lists a field's allowed values.
func (s *Source) addEnumVar(sp *ast.ValueSpec, d *ast.CommentGroup) {
	m := enumDocRE.FindStringSubmatch(text(d))
	if m == nil || len(sp.Names) != 1 || sp.Names[0].Name != m[1] {
		return
	}
	s.EnumVars[m[2]+"."+m[3]] = m[1]
}

func (s *Source) addStruct(fset *token.FileSet, typ string, st *ast.StructType) {
	var group string // the doc of the run of fields the current field belongs to
	prevLine := -1
	for _, fld := range st.Fields.List {
		line := fset.Position(fld.Pos()).Line
		own := text(fld.Doc)
		if own == "" {
			own = text(fld.Comment)
		}
		switch {
		case fld.Doc != nil:
			group = text(fld.Doc)
		case prevLine < 0 || line != prevLine+1:
			group = ""
		}
		if !keyed(fld) {
			prevLine = fset.Position(fld.End()).Line
			continue
		}
		if id := baseIdent(fld.Type); id != "" {
			s.refs[typ] = append(s.refs[typ], id)
		}
		for _, n := range fld.Names {
			desc := own
			if desc == "" && mentions(group, n.Name) {
				desc = group
			}
			key := typ + "." + n.Name
			if desc != "" {
				s.Fields[key] = desc
			}
			if mt, ok := fld.Type.(*ast.MapType); ok {
				if id, ok := mt.Key.(*ast.Ident); ok && id.Name == "Percentile" {
					s.MapKeyEnums[key] = percentileKeys
				}
			}
		}
		prevLine = fset.Position(fld.End()).Line
	}
}

// mentions reports whether doc names word as a whole word.
func mentions(doc, word string) bool {
	if doc == "" || word == "" {
		return false
	}
	return regexp.MustCompile(`\b` + regexp.QuoteMeta(word) + `\b`).MatchString(doc)
}

// Mentions reports whether doc names the field by its Go name or its YAML key.
func Mentions(doc, goName, key string) bool {
	return mentions(doc, goName) || mentions(doc, key)
}

// text is a comment group's text as one paragraph per blank-line-separated block,
// lines joined by spaces; a line indented as code keeps its line break.
func text(cg *ast.CommentGroup) string {
	if cg == nil {
		return ""
	}
	var out []string
	var para []string
	flush := func() {
		if len(para) > 0 {
			out = append(out, strings.Join(para, " "))
			para = nil
		}
	}
	for _, l := range strings.Split(strings.TrimSpace(cg.Text()), "\n") {
		switch {
		case strings.TrimSpace(l) == "":
			flush()
		case strings.HasPrefix(l, "\t") || strings.HasPrefix(l, "  "):
			flush()
			out = append(out, "\t"+strings.TrimSpace(l))
		default:
			para = append(para, strings.TrimSpace(l))
		}
	}
	flush()
	return strings.Join(out, "\n")
}

// Synopsis is doc's first sentence (go/doc's rule).
func Synopsis(d string) string {
	var p doc.Package
	return p.Synopsis(d)
}

// GoFile renders the source as the Go file of package planref (gofmt'ed).
func (s *Source) GoFile() ([]byte, error) {
	var b bytes.Buffer
	b.WriteString("// Code generated by go generate ./plan (plan/planref/internal/gensource); DO NOT EDIT.\n\n")
	b.WriteString("package planref\n\nimport \"github.com/llmcap/llmcap/plan\"\n\n")
	b.WriteString("// sourceDocs holds the plan package's doc comments and allowed-value lists.\n")
	b.WriteString("var sourceDocs = docs{\n")
	writeMap(&b, "fields", s.Fields, strconv.Quote)
	writeMap(&b, "types", s.Types, strconv.Quote)
	ref := func(v string) string { return "plan." + v }
	writeMap(&b, "enums", s.EnumVars, ref)
	writeMap(&b, "mapKeys", s.MapKeyEnums, ref)
	b.WriteString("values: map[string]any{\n")
	for _, v := range s.Values {
		fmt.Fprintf(&b, "%q: plan.%s,\n", v, v)
	}
	b.WriteString("},\n}\n")
	out, err := format.Source(b.Bytes())
	if err != nil {
		return nil, fmt.Errorf("format docs_gen.go: %w", err)
	}
	return out, nil
}

func writeMap(b *bytes.Buffer, name string, m map[string]string, val func(string) string) {
	typ := "map[string]string"
	if name == "enums" || name == "mapKeys" {
		typ = "map[string][]string"
	}
	fmt.Fprintf(b, "%s: %s{\n", name, typ)
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		fmt.Fprintf(b, "%q: %s,\n", k, val(m[k]))
	}
	b.WriteString("},\n")
}

// keyed reports whether a field is a plan key: it has a mapstructure tag other than "-".
func keyed(fld *ast.Field) bool {
	if fld.Tag == nil {
		return false
	}
	tag, err := strconv.Unquote(fld.Tag.Value)
	if err != nil {
		return false
	}
	name, _, _ := strings.Cut(reflect.StructTag(tag).Get("mapstructure"), ",")
	return name != "" && name != "-"
}

// baseIdent is the local type a field's type expression holds (T, *T, []T, map[K]T).
func baseIdent(e ast.Expr) string {
	switch t := e.(type) {
	case *ast.Ident:
		return t.Name
	case *ast.StarExpr:
		return baseIdent(t.X)
	case *ast.ArrayType:
		return baseIdent(t.Elt)
	case *ast.MapType:
		return baseIdent(t.Value)
	}
	return ""
}

// keepReachable drops the types (and their fields and allowed-value lists) a plan
// cannot hold: errors, steps and the like.
func (s *Source) keepReachable() {
	seen := map[string]bool{}
	var visit func(string)
	visit = func(t string) {
		if seen[t] {
			return
		}
		seen[t] = true
		for _, r := range s.refs[t] {
			if _, ok := s.Types[r]; ok {
				visit(r)
			}
		}
	}
	visit(root)
	for _, m := range []map[string]string{s.Fields, s.EnumVars, s.MapKeyEnums} {
		for k := range m {
			if typ, _, _ := strings.Cut(k, "."); !seen[typ] {
				delete(m, k)
			}
		}
	}
	for t := range s.Types {
		if !seen[t] {
			delete(s.Types, t)
		}
	}
}
