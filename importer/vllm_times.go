package importer

import (
	"container/heap"
	"fmt"
	"math"
	"time"

	"github.com/llmcap/llmcap/plan"
)

// vllmSendTimes is each request's send time in unix ns: from start_times (seconds of
// time.perf_counter(), shifted so that the first send is at base), else reconstructed
// from the schedule and noted (vllmReconstruct).
func vllmSendTimes(s *source, res *vllmResult, n int, base time.Time) ([]int64, error) {
	out := make([]int64, n)
	if len(res.StartTimes) == 0 {
		return vllmReconstruct(s, res, n, base), nil
	}
	first := math.Inf(1)
	for i, t := range res.StartTimes {
		if t == nil || math.IsNaN(*t) || math.IsInf(*t, 0) {
			return nil, fmt.Errorf("import %s: start_times[%d] is not a time", s.file, i)
		}
		first = math.Min(first, *t)
	}
	for i, t := range res.StartTimes {
		out[i] = base.UnixNano() + int64(math.Round((*t-first)*1e9))
	}
	return out, nil
}

// vllmReconstruct lays out the send times of a file without start_times (vLLM
// versions before they were saved), in file order, which is the order the bench
// created its requests: a closed loop at C sends each request when the earliest of C
// slots frees (its previous request's latency after its own send), as the bench's
// semaphore does; an open loop sends at evenly spaced arrivals 1/rate apart (the
// bench's own arrivals were random and are not saved), held while max_concurrency
// requests are in flight. It notes the reconstruction in s.
func vllmReconstruct(s *source, res *vllmResult, n int, base time.Time) []int64 {
	slots := s.concurrency
	if s.schedule == plan.ScheduleRate {
		slots = s.maxConcurrency
		s.notes = append(s.notes, "send times reconstructed (no start_times): evenly spaced at the rate")
	} else {
		s.notes = append(s.notes, "send times reconstructed (no start_times): each request when one of the slots freed")
	}
	free := &slotHeap{}
	out := make([]int64, n)
	for i := range n {
		at := 0.0
		if s.schedule == plan.ScheduleRate {
			at = float64(i) / s.rate
		}
		if slots > 0 && free.Len() == slots {
			at = math.Max(at, heap.Pop(free).(float64))
		}
		heap.Push(free, at+vllmLatency(res, i))
		out[i] = base.UnixNano() + int64(math.Round(at*1e9))
	}
	return out
}

// vllmLatency is request i's time in flight in s: latencies[i], else ttft + the sum
// of its itls; 0 when unknown.
func vllmLatency(res *vllmResult, i int) float64 {
	if len(res.Latencies) > i && res.Latencies[i] != nil {
		return math.Max(0, *res.Latencies[i])
	}
	l := 0.0
	if res.TTFTs[i] != nil {
		l = *res.TTFTs[i]
	}
	for _, g := range res.ITLs[i] {
		if g != nil {
			l += *g
		}
	}
	return math.Max(0, l)
}

// slotHeap is a min-heap of the times (s) at which busy slots free.
type slotHeap []float64

func (h slotHeap) Len() int           { return len(h) }
func (h slotHeap) Less(i, j int) bool { return h[i] < h[j] }
func (h slotHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *slotHeap) Push(x any)        { *h = append(*h, x.(float64)) }
func (h *slotHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
