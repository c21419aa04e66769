package sim

import (
	"fmt"

	"github.com/llmcap/llmcap/catalog"
)

// catalogEntries loads the catalog (the embedded one with the override file at path
// merged on top, path "" for none) and returns its GPU and model of these names,
// checked by catalog.GPU.Validate and catalog.Model.Validate. Errors: an unreadable or
// malformed override, an unknown name (listing the known ones), or a bad entry.
func catalogEntries(path, gpu, model string) (catalog.GPU, catalog.Model, error) {
	cat, err := catalog.Load(path)
	if err != nil {
		return catalog.GPU{}, catalog.Model{}, err
	}
	gpus, models := cat.Names()
	g, ok := cat.GPU(gpu)
	if !ok {
		return g, catalog.Model{}, fmt.Errorf("unknown GPU %q (catalog has %v)", gpu, gpus)
	}
	m, ok := cat.Model(model)
	if !ok {
		return g, m, fmt.Errorf("unknown model %q (catalog has %v)", model, models)
	}
	if err := g.Validate(); err != nil {
		return g, m, err
	}
	return g, m, m.Validate()
}
