package sim

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// unitCost is a transparent cost model for exact schedules: 10 ms + 1 ms per token.
func unitCost(work []Work) time.Duration {
	d := 10 * time.Millisecond
	for _, w := range work {
		d += time.Duration(w.Tokens) * time.Millisecond
	}
	return d
}

func newTestScheduler(t *testing.T, cfg SchedulerConfig) *Scheduler {
	t.Helper()
	s, err := NewScheduler(cfg, unitCost)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func addReq(t *testing.T, s *Scheduler, id uint64, prompt, output int, hashes []uint64) *Request {
	t.Helper()
	r := &Request{ID: id, PromptTokens: prompt, OutputTokens: output, BlockHashes: hashes}
	if err := s.Add(r, 0); err != nil {
		t.Fatal(err)
	}
	return r
}

// render describes an iteration as "r<id>:<tokens>@<context>" entries, then "!r<id>"
// for each preemption and "+r<id>" for each request that emitted a token.
func render(it *Iteration, emitted []*Request) string {
	var b strings.Builder
	for i, sc := range it.Scheduled {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "r%d:%d@%d", sc.Req.ID, sc.Tokens, sc.Context)
	}
	for _, r := range it.Preempted {
		fmt.Fprintf(&b, " !r%d", r.ID)
	}
	for _, r := range emitted {
		fmt.Fprintf(&b, " +r%d", r.ID)
	}
	return b.String()
}

// runAll steps the scheduler until idle and returns the rendered schedule.
func runAll(t *testing.T, s *Scheduler) []string {
	t.Helper()
	var out []string
	var now time.Duration
	for range 1000 {
		it := s.Step(now)
		if it == nil {
			return out
		}
		now += it.Duration
		emitted, _ := s.Complete(it)
		out = append(out, render(it, emitted))
	}
	t.Fatal("scheduler did not drain in 1000 iterations")
	return nil
}

func checkSchedule(t *testing.T, got, want []string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("schedule:\n got: %q\nwant: %q", got, want)
	}
}

func TestSchedulerBatchAdmission(t *testing.T) {
	s := newTestScheduler(t, SchedulerConfig{MaxNumSeqs: 2, MaxNumBatchedTokens: 100, NumBlocks: 100, BlockSize: 4})
	addReq(t, s, 1, 8, 3, nil)
	addReq(t, s, 2, 8, 3, nil)
	addReq(t, s, 3, 5, 2, nil)
	got := runAll(t, s)
	checkSchedule(t, got, []string{
		"r1:8@0 r2:8@0 +r1 +r2", // max_num_seqs 2: r3 waits
		"r1:1@8 r2:1@8 +r1 +r2",
		"r1:1@9 r2:1@9 +r1 +r2", // both finish
		"r3:5@0 +r3",
		"r3:1@5 +r3",
	})
	if s.Running() != 0 || s.Waiting() != 0 || s.KVUsage() != 0 {
		t.Errorf("after drain: running %d waiting %d kv %.2f", s.Running(), s.Waiting(), s.KVUsage())
	}
	if s.PromptTokens != 21 || s.GenerationTokens != 8 {
		t.Errorf("counters: prompt %d generation %d, want 21 and 8", s.PromptTokens, s.GenerationTokens)
	}
}

func TestSchedulerChunkedPrefill(t *testing.T) {
	s := newTestScheduler(t, SchedulerConfig{MaxNumSeqs: 4, MaxNumBatchedTokens: 8, NumBlocks: 100, BlockSize: 4})
	r1 := addReq(t, s, 1, 20, 2, nil)
	addReq(t, s, 2, 5, 2, nil)
	got := runAll(t, s)
	checkSchedule(t, got, []string{
		"r1:8@0",
		"r1:8@8",
		"r1:4@16 r2:4@0 +r1", // the budget's remainder starts r2's prefill
		"r1:1@20 r2:1@4 +r1 +r2",
		"r2:1@5 +r2",
	})
	// 3 iterations of 18 ms (10 + 8 tokens) before r1's first token.
	if r1.FirstToken != 3*18*time.Millisecond {
		t.Errorf("r1 first token at %v, want 54ms", r1.FirstToken)
	}
}

func TestSchedulerKVExhaustionPreemption(t *testing.T) {
	s := newTestScheduler(t, SchedulerConfig{MaxNumSeqs: 4, MaxNumBatchedTokens: 100, NumBlocks: 6, BlockSize: 4})
	addReq(t, s, 1, 8, 8, nil)
	r2 := addReq(t, s, 2, 8, 8, nil)
	got := runAll(t, s)
	checkSchedule(t, got, []string{
		"r1:8@0 r2:8@0 +r1 +r2", // 4 of 6 blocks
		"r1:1@8 r2:1@8 +r1 +r2", // 6 of 6 blocks
		"r1:1@9 r2:1@9 +r1 +r2",
		"r1:1@10 r2:1@10 +r1 +r2",
		"r1:1@11 r2:1@11 +r1 +r2",
		"r1:1@12 !r2 +r1", // r1 needs a 4th block: the newest (r2) is preempted
		"r1:1@13 +r1",     // r2 (13 tokens = 4 blocks) does not fit beside r1
		"r1:1@14 +r1",     // r1 finishes
		"r2:13@0 +r2",     // recompute prompt + 5 generated tokens
		"r2:1@13 +r2",
		"r2:1@14 +r2",
	})
	if s.Preemptions != 1 || r2.Preemptions != 1 || r2.Generated != 8 {
		t.Errorf("preemptions %d (r2 %d), r2 generated %d; want 1, 1, 8", s.Preemptions, r2.Preemptions, r2.Generated)
	}
}

func TestSchedulerPrefixCacheHits(t *testing.T) {
	hashes := func(text string) []uint64 {
		h := newPromptHasher(4, true)
		h.add(text)
		return h.hashes
	}
	shared := "a b c d e f g h " // two full blocks
	s := newTestScheduler(t, SchedulerConfig{MaxNumSeqs: 4, MaxNumBatchedTokens: 100, NumBlocks: 20, BlockSize: 4, PrefixCaching: true})
	addReq(t, s, 1, 10, 1, hashes(shared+"x y"))
	checkSchedule(t, runAll(t, s), []string{"r1:10@0 +r1"})

	// Same two blocks, different tail: 8 cached tokens, 2 computed.
	r2 := addReq(t, s, 2, 10, 1, hashes(shared+"p q"))
	// Exactly the two blocks: at least one token must be computed, so only 1 block hits.
	r3 := addReq(t, s, 3, 8, 1, hashes(shared))
	// Different first block: no hit, even though the second block's words match.
	r4 := addReq(t, s, 4, 10, 1, hashes("z b c d e f g h x y"))
	checkSchedule(t, runAll(t, s), []string{"r2:2@8 r3:4@4 r4:10@0 +r2 +r3 +r4"})
	if r2.CachedTokens != 8 || r3.CachedTokens != 4 || r4.CachedTokens != 0 {
		t.Errorf("cached tokens %d %d %d, want 8 4 0", r2.CachedTokens, r3.CachedTokens, r4.CachedTokens)
	}
	if s.PrefixHits != 12 || s.PrefixQueries != 38 {
		t.Errorf("prefix hits/queries %d/%d, want 12/38", s.PrefixHits, s.PrefixQueries)
	}
}

func TestSchedulerRejectsTooLong(t *testing.T) {
	s := newTestScheduler(t, SchedulerConfig{MaxNumSeqs: 4, MaxNumBatchedTokens: 100, NumBlocks: 2, BlockSize: 4})
	if err := s.Add(&Request{ID: 1, PromptTokens: 8, OutputTokens: 1}, 0); err == nil {
		t.Error("9 tokens in 2 blocks of 4: want ErrTooLong")
	}
	if err := s.Add(&Request{ID: 2, PromptTokens: 0, OutputTokens: 1}, 0); err == nil {
		t.Error("empty prompt: want an error")
	}
}

func TestSchedulerAbort(t *testing.T) {
	s := newTestScheduler(t, SchedulerConfig{MaxNumSeqs: 4, MaxNumBatchedTokens: 100, NumBlocks: 10, BlockSize: 4})
	r1 := addReq(t, s, 1, 8, 4, nil)
	it := s.Step(0)
	s.Abort(r1) // client went away during the iteration
	if emitted, _ := s.Complete(it); len(emitted) != 0 {
		t.Errorf("aborted request emitted %d tokens", len(emitted))
	}
	if s.Step(it.Duration) != nil || s.KVUsage() != 0 {
		t.Errorf("after abort: scheduler not idle (kv %.2f)", s.KVUsage())
	}
}
