package analysis

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"
)

// recordChunkBytes is the size of the blocks of records.jsonl parsed in parallel.
const recordChunkBytes = 1 << 20

// chunk is a block of whole lines of records.jsonl, numbered in file order.
type chunk struct {
	seq  int
	data []byte
}

// parsedChunk is a chunk's records (their strings alias chunk.data) and its bad lines.
type parsedChunk struct {
	seq  int
	recs []rawRecord
	bad  int
}

// readRecordsParallel stream-decodes records.jsonl with one parser per CPU: a reader
// cuts the file into blocks of whole lines, workers parse them, and the caller's
// goroutine adds the records to the store in file order. Memory stays bounded by the
// channel buffers (a few blocks per worker).
func readRecordsParallel(rd io.Reader) (*store, error) {
	workers := max(runtime.GOMAXPROCS(0), 1)
	chunks := make(chan chunk, workers)
	parsed := make(chan parsedChunk, 2*workers)
	var readErr error
	go func() {
		readErr = splitChunks(rd, chunks)
		close(chunks)
	}()
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for c := range chunks {
				parsed <- parseChunk(c)
			}
		}()
	}
	go func() { wg.Wait(); close(parsed) }()
	s := newStore()
	pending := map[int]parsedChunk{}
	next := 0
	for pc := range parsed {
		pending[pc.seq] = pc
		for {
			p, ok := pending[next]
			if !ok {
				break
			}
			delete(pending, next)
			s.bad += p.bad
			for i := range p.recs {
				s.add(&p.recs[i])
			}
			next++
		}
	}
	if readErr != nil {
		return nil, readErr
	}
	return s, nil
}

// splitChunks reads rd into blocks that end at a newline (the last block may not).
func splitChunks(rd io.Reader, out chan<- chunk) error {
	var carry []byte
	for seq := 0; ; seq++ {
		buf := make([]byte, len(carry), len(carry)+recordChunkBytes)
		copy(buf, carry)
		n, err := io.ReadFull(rd, buf[len(carry):cap(buf)])
		buf = buf[:len(carry)+n]
		eof := errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
		if err != nil && !eof {
			return fmt.Errorf("read records: %w", err)
		}
		if eof {
			if len(buf) > 0 {
				out <- chunk{seq: seq, data: buf}
			}
			return nil
		}
		cut := bytes.LastIndexByte(buf, '\n')
		if cut < 0 { // one line longer than a block: keep reading
			carry = buf
			seq--
			continue
		}
		carry = append([]byte(nil), buf[cut+1:]...)
		out <- chunk{seq: seq, data: buf[:cut+1]}
	}
}

// parseChunk parses every line of a block (fast path, then encoding/json).
func parseChunk(c chunk) parsedChunk {
	pc := parsedChunk{seq: c.seq}
	data := c.data
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		line := data
		if i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		if len(trimSpace(line)) == 0 {
			continue
		}
		var r rawRecord // its own icl slice: records keep theirs until merged
		if scanRecord(line, &r) != nil && decodeRecordSlow(line, &r) != nil {
			pc.bad++
			continue
		}
		pc.recs = append(pc.recs, r)
	}
	return pc
}
