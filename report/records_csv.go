package report

import (
	"bufio"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/llmcap/llmcap/rundir"
)

// FileRecordsCSV is the file of every request, one row each: the Requests sheet's
// rows, all of them, however many the sheet keeps (report.xlsx_max_rows). The "xlsx"
// format writes it next to the workbook, from the same pass over records.jsonl; without
// "xlsx", the "csv" format writes it (next to steps.csv).
const FileRecordsCSV = "records.csv"

// recordsCSV writes records.csv's rows as the requests stream: the Requests sheet's
// columns and headers (requestColumns; latencies in ms, sent in s since the run's
// first request), an undefined cell empty. Cells are quoted as encoding/csv quotes
// them (RFC 4180), appended to one buffer without a string per cell.
type recordsCSV struct {
	bw  *bufio.Writer
	buf []byte
}

// newRecordsCSV writes the header to out.
func newRecordsCSV(out io.Writer) (*recordsCSV, error) {
	cols := requestColumns(styles{})
	c := &recordsCSV{bw: bufio.NewWriterSize(out, 1<<20)}
	hdr := make([]any, len(cols))
	for i, col := range cols {
		hdr[i] = col.header
	}
	return c, c.write(hdr)
}

// write writes one request's row (requestRow's values).
func (c *recordsCSV) write(vals []any) error {
	c.buf = c.buf[:0]
	for i, v := range vals {
		if i > 0 {
			c.buf = append(c.buf, ',')
		}
		c.buf = appendCSVCell(c.buf, v)
	}
	c.buf = append(c.buf, '\n')
	_, err := c.bw.Write(c.buf)
	return err
}

// flush writes what is buffered; errors: the write's.
func (c *recordsCSV) flush() error { return c.bw.Flush() }

// writeXLSXAndRecordsCSV writes report.xlsx and records.csv into dir from one pass over
// records.jsonl (streamed, input.eachRequest: file order, a request's repeated lines
// once) (the Requests sheet's, writeXLSX's everyRow); records.csv is replaced
// only when the workbook was written. Errors: either file's, records.csv's named.
func writeXLSXAndRecordsCSV(dir string, in *input) error {
	return replaceRecordsCSV(dir, func(row func([]any) error) error {
		return writeXLSX(filepath.Join(dir, FileXLSX), in, row)
	})
}

// writeRecordsCSV writes records.csv alone (the "csv" format without the workbook),
// from one streamed pass over records.jsonl (input.eachRequest); replaced atomically.
func writeRecordsCSV(dir string, in *input) error {
	return replaceRecordsCSV(dir, func(row func([]any) error) error {
		vals := make([]any, len(requestColumns(styles{})))
		return in.eachRequest(func(r *rundir.Record) error {
			requestRow(vals, r, in.requests.firstSentNs)
			return row(vals)
		})
	})
}

// replaceRecordsCSV replaces dir's records.csv (rundir.WriteAtomic) with the header and
// the rows fill passes to row; an error of fill keeps the old file. Errors: fill's, or
// records.csv's (named).
func replaceRecordsCSV(dir string, fill func(row func([]any) error) error) error {
	return rundir.WriteAtomic(filepath.Join(dir, FileRecordsCSV), func(f io.Writer) error {
		c, err := newRecordsCSV(f)
		if err != nil {
			return fmt.Errorf("%s: %w", FileRecordsCSV, err)
		}
		row := func(vals []any) error {
			if err := c.write(vals); err != nil {
				return fmt.Errorf("%s: %w", FileRecordsCSV, err)
			}
			return nil
		}
		if err := fill(row); err != nil {
			return err
		}
		if err := c.flush(); err != nil {
			return fmt.Errorf("%s: %w", FileRecordsCSV, err)
		}
		return nil
	})
}

// appendCSVCell appends one Requests-sheet value as CSV text: nil empty, floats in
// the shortest form that reads back exactly, a string quoted when encoding/csv would
// (it holds a comma, quote, CR or LF, starts with a space or tab, or is \.). A text
// cell that a spreadsheet would read as a formula (formulaLead: a server's error
// message such as `=cmd|...`) gets a leading apostrophe, as OWASP advises, so opening
// records.csv runs nothing; records.jsonl keeps the text as received.
func appendCSVCell(b []byte, v any) []byte {
	switch x := v.(type) {
	case nil:
		return b
	case string:
		if x != "" && formulaLead(x[0]) {
			x = "'" + x
		}
		return appendCSVString(b, x)
	case int:
		return strconv.AppendInt(b, int64(x), 10)
	case float64:
		return strconv.AppendFloat(b, x, 'f', -1, 64)
	default:
		return appendCSVString(b, fmt.Sprint(x))
	}
}

// formulaLead reports whether a spreadsheet opening a CSV file would read a text cell
// starting with b as a formula (=, +, -, @, tab, CR: OWASP's CSV injection list).
func formulaLead(b byte) bool {
	return b == '=' || b == '+' || b == '-' || b == '@' || b == '\t' || b == '\r'
}

// appendCSVString appends s as one CSV field (see appendCSVCell).
func appendCSVString(b []byte, s string) []byte {
	quote := s == `\.` || (s != "" && (s[0] == ' ' || s[0] == '\t')) || strings.ContainsAny(s, ",\"\r\n")
	if !quote {
		return append(b, s...)
	}
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		if s[i] == '"' {
			b = append(b, '"')
		}
		b = append(b, s[i])
	}
	return append(b, '"')
}
