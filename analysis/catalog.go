package analysis

import "github.com/llmcap/llmcap/configs"

// The what-if projection reads GPU specs from the embedded catalog (configs/catalog.yaml).
func init() { catalogData = func() []byte { return configs.Catalog } }
