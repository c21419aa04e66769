package tracefile

import (
	"fmt"
	"math"
)

// checkRows checks rows read from a trace window: arrival times never go back, the
// window spans at most math.MaxInt64 ns (~292 years), and token counts are in [0,
// MaxTokens]. Errors name the row's 1-based file line (Raw.Line).
func checkRows(raw []Raw) error {
	for i, r := range raw {
		if r.Prompt < 0 || r.Output < 0 {
			return fmt.Errorf("line %d: negative token count (prompt %d, output %d)", r.Line, r.Prompt, r.Output)
		}
		if r.Prompt > MaxTokens || r.Output > MaxTokens {
			return fmt.Errorf("line %d: token count above %d (prompt %d, output %d)", r.Line, MaxTokens, r.Prompt, r.Output)
		}
		if i == 0 {
			continue
		}
		if r.AtNs < raw[i-1].AtNs {
			return fmt.Errorf("line %d: arrival time before the previous row's (a trace is sorted by time)", r.Line)
		}
		if raw[0].AtNs < 0 && r.AtNs > math.MaxInt64+raw[0].AtNs {
			return fmt.Errorf("line %d: arrival time more than %d ns after the first row's", r.Line, int64(math.MaxInt64))
		}
	}
	return nil
}
