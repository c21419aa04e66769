package plan

import (
	"os"
	"reflect"
	"regexp"
	"strconv"
	"strings"

	"github.com/spf13/viper"
)

// CLIEnv are the LLMCAP_* variables the command line reads itself (--config, --out,
// --log-level); they are not plan keys but are not misspellings either.
var CLIEnv = []string{"LLMCAP_CONFIG", "LLMCAP_OUT", "LLMCAP_LOG_LEVEL", "LLMCAP_LOG_FORMAT", "LLMCAP_QUIET"}

// slaEnvRE matches an SLA map entry from the environment: LLMCAP_SLA_TTFT_MS_P99 is
// sla.ttft_ms.p99.
var slaEnvRE = regexp.MustCompile(`^` + EnvPrefix + `_SLA_(TTFT|TTFO|ITL|E2E)_MS_([A-Z0-9]+)$`)

// envName is the environment variable of a dotted plan key.
func envName(key string) string {
	return EnvPrefix + "_" + strings.ToUpper(strings.ReplaceAll(key, ".", "_"))
}

// envOverrides applies the SLA map entries set in the environment
// (LLMCAP_SLA_TTFT_MS_P99=300 works like --set sla.ttft_ms.p99=300, which wins over
// it) and reports every LLMCAP_* variable under a plan section (LLMCAP_TARGET_…,
// LLMCAP_LADDER_…) that names no plan key: a misspelling would otherwise be ignored.
// Variables outside the plan's sections (test and script settings) are left alone.
func envOverrides(v *viper.Viper, overrides map[string]any) problems {
	var ps problems
	known := map[string]bool{}
	for _, k := range envKeys(reflect.TypeOf(Plan{}), "") {
		known[envName(k)] = true
	}
	for _, k := range CLIEnv {
		known[k] = true
	}
	sections := topLevelKeys()
	for _, kv := range os.Environ() {
		name, val, _ := strings.Cut(kv, "=")
		if !strings.HasPrefix(name, EnvPrefix+"_") || known[name] || !underSection(name, sections) {
			continue
		}
		if m := slaEnvRE.FindStringSubmatch(name); m != nil {
			key := "sla." + strings.ToLower(m[1]) + "_ms." + strings.ToLower(m[2])
			f, err := strconv.ParseFloat(strings.TrimSpace(val), 64)
			switch {
			case err != nil:
				ps.add(key, raw(strconv.Quote(val)+" (from "+name+")"), "must be a number of ms")
			case overrides[key] == nil:
				v.Set(key, f)
			}
			continue
		}
		ps.add(name, raw(""), "names no plan key (misspelled?)%s; keys map as "+
			"target.simulator.max_num_seqs ← LLMCAP_TARGET_SIMULATOR_MAX_NUM_SEQS", closest(name, known))
	}
	return ps
}

// topLevelKeys are the plan's top-level keys, upper-cased (NAME, TARGET, LADDER, …).
func topLevelKeys() []string {
	t := reflect.TypeOf(Plan{})
	var out []string
	for i := 0; i < t.NumField(); i++ {
		if tag := strings.Split(t.Field(i).Tag.Get("mapstructure"), ",")[0]; tag != "" && tag != "-" {
			out = append(out, strings.ToUpper(tag))
		}
	}
	return out
}

func underSection(name string, sections []string) bool {
	rest := strings.TrimPrefix(name, EnvPrefix+"_")
	for _, s := range sections {
		if rest == s || strings.HasPrefix(rest, s+"_") {
			return true
		}
	}
	return false
}

// closest suggests the known variable nearest to name (nearest): "; did you mean X?",
// or "".
func closest(name string, known map[string]bool) string {
	names := make([]string, 0, len(known))
	for k := range known {
		names = append(names, k)
	}
	if best := nearest(name, names); best != "" {
		return "; did you mean " + best + "?"
	}
	return ""
}

// nearest is the name of known nearest to name (edit distance ≤ 3; the first in
// sort order among equals), or "" when none is that near: the misspelling suggestion
// of environment variables (closest) and of unknown plan keys, from a file or --set
// (decodeProblem).
func nearest(name string, known []string) string {
	best, bestD := "", 4
	for _, k := range known {
		if d := editDistance(name, k); d < bestD || (d == bestD && k < best) {
			best, bestD = k, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance of a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			c := prev[j-1]
			if a[i-1] != b[j-1] {
				c++
			}
			cur[j] = min(c, prev[j]+1, cur[j-1]+1)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// nameEnvSources appends "(the value comes from LLMCAP_X)" to problems whose value came
// from the environment (the key's variable is set and no override replaced it), and
// "(the key comes from --set)" to those of an override's key.
func nameEnvSources(ps problems, overrides map[string]any) problems {
	for i := range ps {
		p := &ps[i]
		if p.Path == "" || strings.HasPrefix(p.Path, EnvPrefix+"_") || strings.ContainsAny(p.Path, "[*") {
			continue
		}
		if _, over := overrides[p.Path]; over {
			if strings.HasPrefix(p.Value, "unknown key ") {
				p.Allowed += " (the key comes from --set)"
			}
			continue
		}
		if name := envName(p.Path); os.Getenv(name) != "" && !strings.Contains(p.Value+p.Allowed, name) {
			p.Allowed += " (the value comes from " + name + ")"
		}
	}
	return ps
}
