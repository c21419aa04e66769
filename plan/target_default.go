package plan

import (
	"os"

	"github.com/spf13/viper"
)

// TargetURLSet reports whether target.url is given explicitly: by the plan file at
// path, by an override (--set target.url=…) or by LLMCAP_TARGET_URL. When it is not,
// the plan drives the embedded simulator with its defaults (TargetSimulator), which
// the CLI says in a warning. An unreadable file counts as not setting it.
func TargetURLSet(path string, overrides map[string]any) bool {
	if _, ok := overrides["target.url"]; ok {
		return true
	}
	if os.Getenv(EnvPrefix+"_TARGET_URL") != "" {
		return true
	}
	if path == "" {
		return false
	}
	v := viper.New()
	v.SetConfigFile(path)
	v.SetConfigType("yaml")
	return v.ReadInConfig() == nil && v.InConfig("target.url")
}
