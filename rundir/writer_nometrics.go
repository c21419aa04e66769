package rundir

import (
	"fmt"
	"os"
	"path/filepath"
)

// OmitServerMetrics removes server-metrics.jsonl, which OpenWriter created, while it
// is still empty: for a run that has no scrapes (an import of another tool's results),
// so that the directory does not list an empty file as scraped server metrics. Readers
// take a missing file as no scrapes (EachMetric). It refuses once a scrape has been
// written; after it AppendMetric and SyncMetrics fail.
func (w *Writer) OmitServerMetrics() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.metrics == nil {
		return nil
	}
	st, err := w.metrics.Stat()
	if err != nil {
		return fmt.Errorf("stat %s: %w", FileServerMetrics, err)
	}
	if st.Size() > 0 {
		return fmt.Errorf("omit %s: it holds %d bytes of scrapes", FileServerMetrics, st.Size())
	}
	err = w.metrics.Close()
	w.metrics = nil
	if err != nil {
		return fmt.Errorf("close %s: %w", FileServerMetrics, err)
	}
	if err := os.Remove(filepath.Join(w.dir, FileServerMetrics)); err != nil {
		return fmt.Errorf("remove %s: %w", FileServerMetrics, err)
	}
	return nil
}
