package plan

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cast"
	"github.com/spf13/viper"
)

// FuzzSetOverride checks the --set parser (ParseSet) and its application to two plans
// on arbitrary flags: configs/demo.yaml (segments, levels and report formats from the
// file) and a minimal plan (report formats and the rest from the defaults). A flag
// either fails to parse with an error naming --set, or its override is refused with a
// problem at exactly its key, or it round-trips: the plan's value at the key (list items
// addressed by index) is the value given. Loading the plan with it never panics and
// gives a plan or an error.
func FuzzSetOverride(f *testing.F) {
	demo := filepath.Join("..", "configs", "demo.yaml")
	minimal := filepath.Join(f.TempDir(), "minimal.yaml")
	if err := os.WriteFile(minimal, []byte(okSegments+okLadder), 0o600); err != nil {
		f.Fatal(err)
	}
	for _, s := range []string{
		"ladder.concurrency=[1,2,4]", "segments[0].weight=2", "segments.1.prompt_tokens.mean=400",
		"ladder.duration=30s", "target.simulator.max_num_seqs=64", "report.formats[0]=pdf",
		"target.url=http://127.0.0.1:8000/v1", "sla.max_error_rate=0.05", "segments[9].weight=1",
		"segments[0].name.x=1", "Ladder.Users.x[0]=3", "target.extra_body={ignore_eos: false}",
		"ladder.rate=", "=1", "seed=[", "segments[1][0]=2",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, kv string) {
		key, val, err := ParseSet(kv)
		if err != nil {
			if !strings.Contains(err.Error(), "--set") {
				t.Fatalf("error %q does not name --set", err)
			}
			return
		}
		done := make(chan struct{})
		go func() {
			defer close(done)
			for _, path := range []string{demo, minimal} {
				checkOverride(t, path, kv, key, val)
			}
		}()
		select {
		case <-done:
		case <-time.After(10 * time.Second): // a hang becomes a failing input, not a stalled fuzzer
			t.Fatalf("--set %q: parsing and loading took over 10 s", kv)
		}
	})
}

// checkOverride applies key=val to the plan at path: refused at exactly key (only when
// its path does not exist), or read back equal; and Load gives a plan or a
// *ValidationError.
func checkOverride(t *testing.T, path, kv, key string, val any) {
	v := demoViper(t, path)
	reachable := addressable(v, key)
	if fe := applyOverride(v, key, val); fe != nil {
		if fe.Path != key {
			t.Fatalf("%s: problem at %q for key %q", path, fe.Path, key)
		}
		if reachable {
			t.Fatalf("%s: --set %s refused (%s), yet every list index and map key on its path exists", path, kv, fe.Allowed)
		}
	} else if got, ok := overrideAt(v, key); val != nil && (!ok || !reflect.DeepEqual(got, lowerKeys(val))) {
		t.Fatalf("%s: --set %s: plan holds %#v (found %v), want %#v", path, kv, got, ok, val)
	}
	p, err := Load(path, map[string]any{key: val})
	var ve *ValidationError
	if err == nil && p == nil || err != nil && !errors.As(err, &ve) {
		t.Fatalf("%s: Load: plan %v, error %v (want a plan or a *ValidationError)", path, p, err)
	}
}

// addressable reports whether every list index of an indexed override key is in range
// in v's current values, through maps (of any value type) or missing map levels.
func addressable(v *viper.Viper, key string) bool {
	parts, ok := splitIndexed(key)
	if !ok {
		return false
	}
	cur := reflect.ValueOf(v.Get(parts[0].(string)))
	for _, p := range parts[1:] {
		for cur.Kind() == reflect.Interface {
			cur = cur.Elem()
		}
		switch p := p.(type) {
		case int:
			if cur.Kind() != reflect.Slice || p >= cur.Len() {
				return false
			}
			cur = cur.Index(p)
		case string:
			switch {
			case !cur.IsValid():
			case cur.Kind() == reflect.Map && cur.Type().Key().Kind() == reflect.String:
				cur = cur.MapIndex(reflect.ValueOf(p).Convert(cur.Type().Key()))
			default:
				return false
			}
		}
	}
	return true
}

// lowerKeys is val with its map keys lower-cased strings, as viper keeps them (plan
// keys are case-insensitive; YAML's non-string keys become their text).
func lowerKeys(val any) any {
	switch x := val.(type) {
	case map[any]any:
		return lowerKeys(cast.ToStringMap(x))
	case map[string]any:
		m := map[string]any{}
		for k, v := range x {
			m[strings.ToLower(k)] = lowerKeys(v)
		}
		return m
	case []any:
		l := make([]any, len(x))
		for i, v := range x {
			l[i] = lowerKeys(v)
		}
		return l
	}
	return val
}

// demoViper is the plan file's viper with Load's defaults.
func demoViper(t *testing.T, path string) *viper.Viper {
	v := viper.New()
	for k, val := range defaultValues() {
		v.SetDefault(k, val)
	}
	v.SetConfigFile(path)
	v.SetConfigType("yaml")
	if err := v.ReadInConfig(); err != nil {
		t.Fatal(err)
	}
	return v
}

// overrideAt reads v's value at an override key, following list indexes.
func overrideAt(v *viper.Viper, key string) (any, bool) {
	parts, ok := splitIndexed(key)
	if !ok {
		return v.Get(key), true
	}
	cur := v.Get(parts[0].(string))
	for _, p := range parts[1:] {
		switch p := p.(type) {
		case int:
			l, ok := cur.([]any)
			if !ok || p >= len(l) {
				return nil, false
			}
			cur = l[p]
		case string:
			m, ok := cur.(map[string]any)
			if !ok {
				return nil, false
			}
			cur = m[p]
		}
	}
	return cur, true
}
