package tune

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmcap/llmcap/plan"
)

// The dry run's trial count is the search's own: a grid counts its settings, NSGA-II
// with fewer offspring than its population says the first generation, the later ones
// and the total.
func TestDescribeCountsTheTrials(t *testing.T) {
	path := filepath.Join("..", "configs", "tune-sim-grid.yaml")
	for _, c := range []struct {
		set  map[string]any
		want string
	}{
		{nil, "every one of the 96 settings"},
		{map[string]any{"tune.algorithm": "nsga2"}, "4 settings, then 24 generations of 1 (28 in all)"},
		{map[string]any{"tune.algorithm": "nsga2", "tune.offspring": 0, "tune.generations": 3}, "3 generations of 4 settings"},
	} {
		p, err := plan.Load(path, c.set)
		if err != nil {
			t.Fatal(err)
		}
		text := strings.Join(Describe(p), "\n")
		if !strings.Contains(text, c.want) {
			t.Errorf("overrides %v: the description does not say %q:\n%s", c.set, c.want, text)
		}
	}
}
