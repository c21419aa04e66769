package sweep

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/llmcap/llmcap/rundir"
)

// BenchmarkStreamFeed measures the client's per-event work after the read (SSE framing,
// the chunk's JSON, the record's fields: stream.feed) for one content event, with the
// events dealt round robin over K open streams as an epoll reader deals them. K = 1
// keeps one stream's state in the CPU's caches; at K = 500 and 5,000 each event finds
// its stream's state cold, as in BenchmarkClientStreams500: the difference is what
// the streams' memory layout costs per token (ns/event), apart from the syscalls and
// the server that make the client benchmarks noisy.
func BenchmarkStreamFeed(b *testing.B) {
	frame := []byte(benchChunk)
	for _, k := range []int{1, 500, 5000} {
		b.Run(fmt.Sprintf("streams=%d", k), func(b *testing.B) {
			c := NewClient(ClientConfig{Model: "bench"})
			streams := make([]*stream, k)
			recs := make([]rundir.Record, k)
			for i := range streams {
				streams[i] = newStream(c)
				streams[i].reset(&recs[i], false)
			}
			ctx := context.Background()
			now := time.Now()
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				s := streams[i]
				if s.events >= benchTokens { // a stream's answer is done: the next request
					s.reset(&recs[i], false)
				}
				s.now = now
				if s.feed(ctx, ctx, frame, nil) {
					b.Fatalf("stream %d ended: %s %s", i, s.errClass, s.errMsg)
				}
				if i++; i == k {
					i = 0
				}
			}
		})
	}
}
