package plan

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/go-viper/mapstructure/v2"
	"github.com/spf13/viper"
)

// EnvPrefix is the prefix of environment overrides: target.simulator.max_num_seqs is
// read from LLMCAP_TARGET_SIMULATOR_MAX_NUM_SEQS.
const EnvPrefix = "LLMCAP"

// Load reads the YAML plan at path, applies overrides (flag/env values keyed by dotted
// path, which win over the file), fills defaults, resolves the API key and validates.
// Errors name the field path, the bad value and what is allowed; YAML syntax errors
// carry the line.
//
// Precedence: overrides > LLMCAP_* environment > file > defaults. An empty path loads
// defaults and overrides only. Sections the plan leaves out (segments, the ladder's
// levels, window, warm-up and grace, the SLA) get the defaults of section_defaults.go,
// listed in Plan.Assumed; sla.goodput becomes p95 bounds (GoodputStat). Relative file paths in the plan (traces, empirical
// distributions, api_key_file, the simulator catalog, drift.prompts) are resolved against the config
// file's directory and stored absolute. The returned error is a *SyntaxError, a
// *ValidationError (every problem at once), or a wrapped I/O error.
func Load(path string, overrides map[string]any) (*Plan, error) {
	v := viper.New()
	for k, val := range defaultValues() {
		v.SetDefault(k, val)
	}
	v.SetEnvPrefix(EnvPrefix)
	v.SetEnvKeyReplacer(strings.NewReplacer(".", "_"))
	for _, k := range envKeys(reflect.TypeOf(Plan{}), "") {
		_ = v.BindEnv(k) // cannot fail: k is non-empty
	}
	v.AutomaticEnv()
	baseDir := "."
	if path != "" {
		if st, err := os.Stat(path); err == nil && st.IsDir() {
			return nil, fmt.Errorf("%s: is a directory, not a plan file", path)
		}
		v.SetConfigFile(path)
		v.SetConfigType("yaml")
		if err := v.ReadInConfig(); err != nil {
			return nil, readError(path, err)
		}
		baseDir = filepath.Dir(path)
		if v.IsSet("gpus") && v.IsSet("models") && !v.IsSet("segments") {
			return nil, fmt.Errorf("%s: this is the simulator catalog, not a plan "+
				"(name it in a plan as target.simulator.catalog)", path)
		}
	}
	in := sectionsInFile(v, path)
	segmentsPreset := presetSegments(v)
	envProbs := envOverrides(v, overrides)
	for _, k := range slices.Sorted(maps.Keys(overrides)) {
		if fe := applyOverride(v, k, overrides[k]); fe != nil {
			envProbs = append(envProbs, *fe)
		}
	}

	var p Plan
	var probs problems
	if err := v.UnmarshalExact(&p, viper.DecodeHook(decodeHook())); err != nil {
		probs = decodeProblems(err)
	}
	if levelsReplaceSearch(overrides) {
		p.Ladder.Search = nil
	}
	if p.Name == "" && path != "" {
		p.Name = strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	}
	p.expandGoodput(&probs)
	p.fillSectionDefaults(v, in, path, segmentsPreset, overrides)
	p.fillDerived()
	p.resolvePaths(baseDir)
	if err := p.ResolveAPIKey(); err != nil {
		var ve *ValidationError
		if errors.As(err, &ve) {
			probs = append(probs, ve.Problems...)
		}
	}
	probs = append(probs, without(p.problems(), probs)...)
	probs = append(nameEnvSources(probs, overrides), envProbs...)
	if len(probs) > 0 {
		return nil, &ValidationError{File: path, Problems: probs}
	}
	return &p, nil
}

// levelsReplaceSearch reports whether overrides give the ladder fixed levels
// (ladder.concurrency, ladder.rate or ladder.users, non-empty) and none sets the search:
// the file's ladder.search is then dropped — the override wins, as any override does,
// instead of clashing with it.
func levelsReplaceSearch(overrides map[string]any) bool {
	levels := false
	for k, val := range overrides {
		if strings.HasPrefix(k, "ladder.search") {
			return false
		}
		if k == "ladder.concurrency" || k == "ladder.rate" || k == "ladder.users" {
			if l, ok := val.([]any); !ok || len(l) > 0 {
				levels = true
			}
		}
	}
	return levels
}

// decodeHook turns the short forms of a distribution and a warm-up into their
// mappings (short_forms.go), converts strings to durations and comma-separated strings
// (from the environment) to lists, and rejects bare non-zero numbers for durations: "30" would
// silently mean 30 ns.
func decodeHook() mapstructure.DecodeHookFunc {
	durType := reflect.TypeOf(time.Duration(0))
	bareNumber := func(f, t reflect.Type, data any) (any, error) {
		if t != durType || f == durType {
			return data, nil
		}
		switch rv := reflect.ValueOf(data); rv.Kind() {
		case reflect.String:
			str := strings.TrimSpace(rv.String())
			if _, err := strconv.ParseFloat(str, 64); err == nil && str != "0" {
				return nil, fmt.Errorf("time: no unit: %s", str)
			}
			if _, err := time.ParseDuration(str); err != nil {
				return nil, fmt.Errorf("time: invalid duration %q", str)
			}
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			if rv.Int() != 0 {
				return nil, fmt.Errorf("time: no unit: %d", rv.Int())
			}
		case reflect.Float32, reflect.Float64:
			if rv.Float() != 0 {
				return nil, fmt.Errorf("time: no unit: %g", rv.Float())
			}
		}
		return data, nil
	}
	commaList := func(f, t reflect.Type, data any) (any, error) {
		if f.Kind() != reflect.String || t.Kind() != reflect.Slice {
			return data, nil
		}
		str := strings.TrimSpace(data.(string))
		if str == "" {
			return []string{}, nil
		}
		parts := strings.Split(strings.Trim(str, "[]"), ",")
		for i := range parts {
			parts[i] = strings.TrimSpace(parts[i])
		}
		return parts, nil
	}
	return mapstructure.ComposeDecodeHookFunc(
		shortFormHook,
		bareNumber,
		integralHook,
		mapstructure.StringToTimeDurationHookFunc(),
		commaList,
	)
}

// readError classifies a viper read error: missing file, or YAML syntax with a line.
func readError(path string, err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("read plan %s: %w", path, err)
	}
	var pe viper.ConfigParseError
	if errors.As(err, &pe) || strings.Contains(err.Error(), "yaml:") {
		return newSyntaxError(path, err)
	}
	return fmt.Errorf("read plan %s: %w", path, err)
}

// without drops problems whose path is (under) a path already reported by decoding, so a
// wrongly typed field is not also reported as "must be > 0"; a problem about every item
// of a list ("segments[*].weight": the weights' sum) is dropped when one item's field
// is already reported ("segments[1].weight: heavy").
func without(ps, decoded problems) problems {
	var out problems
	for _, p := range ps {
		dup := false
		for _, d := range decoded {
			if d.Path != "" && (p.Path == d.Path || strings.HasPrefix(p.Path, d.Path+".") ||
				strings.HasPrefix(p.Path, d.Path+"[") || strings.HasPrefix(d.Path, p.Path+"[") ||
				anyItem(p.Path, d.Path)) {
				dup = true
				break
			}
		}
		if !dup {
			out = append(out, p)
		}
	}
	return out
}

// anyItem reports whether path, which names every item of a list with "[*]", names
// item's field for some index: anyItem("segments[*].weight", "segments[2].weight").
func anyItem(path, item string) bool {
	head, tail, ok := strings.Cut(path, "[*]")
	if !ok || !strings.HasPrefix(item, head+"[") || !strings.HasSuffix(item, "]"+tail) {
		return false
	}
	idx := item[len(head)+1 : len(item)-len(tail)-1]
	_, err := strconv.Atoi(idx)
	return err == nil
}

// envKeys lists the dotted keys of every scalar (or scalar-list) field reachable through
// structs and pointers to structs, so each can be overridden from the environment.
// Lists of structs and maps are not reachable from the environment.
func envKeys(t reflect.Type, prefix string) []string {
	var keys []string
	for i := 0; i < t.NumField(); i++ {
		tag := strings.Split(t.Field(i).Tag.Get("mapstructure"), ",")[0]
		if tag == "" || tag == "-" {
			continue
		}
		key := joinPath(prefix, tag)
		ft := t.Field(i).Type
		if ft.Kind() == reflect.Pointer && ft.Elem().Kind() == reflect.Struct {
			ft = ft.Elem()
		}
		switch {
		case ft.Kind() == reflect.Struct:
			keys = append(keys, envKeys(ft, key)...)
		case ft.Kind() == reflect.Map:
		case ft.Kind() == reflect.Slice && ft.Elem().Kind() == reflect.Struct:
		default:
			keys = append(keys, key)
		}
	}
	return keys
}

// resolvePaths makes every relative file path in the plan absolute against baseDir.
func (p *Plan) resolvePaths(baseDir string) {
	abs := func(f *string) {
		if *f == "" || filepath.IsAbs(*f) {
			return
		}
		if a, err := filepath.Abs(filepath.Join(baseDir, *f)); err == nil {
			*f = a
		}
	}
	abs(&p.Target.APIKeyFile)
	abs(&p.Target.Simulator.Catalog)
	if p.Drift != nil {
		abs(&p.Drift.Prompts)
	}
	if d := p.Target.Simulator.OutputTokens; d != nil {
		abs(&d.File)
	}
	for i := range p.Segments {
		s := &p.Segments[i]
		abs(&s.PromptTokens.File)
		abs(&s.OutputTokens.File)
		if s.MultiTurn != nil {
			abs(&s.MultiTurn.ThinkTimeS.File)
		}
		if s.Trace != nil {
			abs(&s.Trace.File)
		}
	}
}

// envVarRE matches a portable environment variable name.
var envVarRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// ResolveAPIKey sets Target.APIKey from Target.APIKeyEnv or Target.APIKeyFile (first
// line, trimmed). It returns a *ValidationError naming the setting when the variable is
// unset or the file is unreadable or empty. The key itself never appears in errors.
func (p *Plan) ResolveAPIKey() error {
	var probs problems
	t := &p.Target
	switch {
	case t.APIKeyEnv != "" && t.APIKeyFile != "":
		probs.add("target.api_key_file", t.APIKeyFile, "set only one of target.api_key_env and target.api_key_file")
	case t.APIKeyEnv != "" && !envVarRE.MatchString(t.APIKeyEnv):
		probs.add("target.api_key_env", raw(""), "must name an environment variable "+
			"(the value looks like a key itself; it is not shown)")
	case t.APIKeyEnv != "":
		t.APIKey = strings.TrimSpace(os.Getenv(t.APIKeyEnv))
		if t.APIKey == "" {
			probs.add("target.api_key_env", t.APIKeyEnv, "must name a set, non-empty environment variable")
		}
	case t.APIKeyFile != "":
		b, err := os.ReadFile(t.APIKeyFile)
		if err == nil {
			t.APIKey = strings.TrimSpace(strings.SplitN(string(b), "\n", 2)[0])
		}
		if err != nil || t.APIKey == "" {
			probs.add("target.api_key_file", t.APIKeyFile, "must name a readable file whose first line is the key")
		}
	}
	if len(probs) > 0 {
		return &ValidationError{Problems: probs}
	}
	return nil
}
