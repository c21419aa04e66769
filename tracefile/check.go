package tracefile

import (
	"fmt"
	"math"
)

// checkRows checks rows read from a trace window whose first data row is start
// (0-based): arrival times never go back, the window spans at most math.MaxInt64 ns
// (~292 years), and token counts are not negative. Errors name the row.
func checkRows(raw []Raw, start int) error {
	for i, r := range raw {
		row := start + i
		if r.Prompt < 0 || r.Output < 0 {
			return fmt.Errorf("row %d: negative token count (prompt %d, output %d)", row, r.Prompt, r.Output)
		}
		if i == 0 {
			continue
		}
		if r.AtNs < raw[i-1].AtNs {
			return fmt.Errorf("row %d: arrival time before the previous row's (a trace is sorted by time)", row)
		}
		if raw[0].AtNs < 0 && r.AtNs > math.MaxInt64+raw[0].AtNs {
			return fmt.Errorf("row %d: arrival time more than %d ns after the first row's", row, int64(math.MaxInt64))
		}
	}
	return nil
}
