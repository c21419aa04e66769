package sim

import (
	"errors"
	"fmt"
	"time"
)

// RequestState is where a request is in the scheduler.
type RequestState int

// Request states.
const (
	StateWaiting RequestState = iota
	StateRunning
	StateFinished
	StateAborted
)

// Request is one generation request inside the scheduler. The caller sets the exported
// input fields before Add; the scheduler owns the rest.
type Request struct {
	// ID identifies the request in iteration plans.
	ID uint64
	// PromptTokens is the prompt length in tokens (≥ 1).
	PromptTokens int
	// OutputTokens is the number of tokens to generate (≥ 1).
	OutputTokens int
	// BlockHashes is the hash chain of the prompt's full blocks (for prefix caching).
	BlockHashes []uint64

	// Arrival, FirstToken and LastToken are virtual times (0 until set); LastGap is the
	// time between the last two tokens (0 after the first token).
	Arrival, FirstToken, LastToken, LastGap time.Duration
	// Generated is the number of output tokens generated so far.
	Generated int
	// Preemptions counts how often the request was preempted.
	Preemptions int
	// CachedTokens is the prompt tokens served from the prefix cache at the last admission.
	CachedTokens int
	// State is the request's current state.
	State RequestState

	computed   int // tokens whose KV is computed
	blocks     []int32
	registered int     // prompt blocks registered in the prefix cache
	stream     *stream // the HTTP stream (driver only)
	textHash   uint64  // the prompt text's hash and the request's seed, for greedy text
	seed       uint64
}

// numTokens is the sequence length so far: prompt plus generated tokens.
func (r *Request) numTokens() int { return r.PromptTokens + r.Generated }

// Scheduled is one request's share of an iteration.
type Scheduled struct {
	Req *Request
	// Tokens computed this iteration (1 for a decode, a chunk for a prefill).
	Tokens int
	// Context is the tokens already in the KV cache before this iteration.
	Context int
}

// Iteration is the plan of one engine step.
type Iteration struct {
	// Start is the virtual time the iteration starts; Duration its simulated length.
	Start, Duration time.Duration
	// Scheduled lists the requests computed, in scheduling order (running first).
	Scheduled []Scheduled
	// Preempted lists the requests preempted while planning this iteration.
	Preempted []*Request
	// PrefillTokens and DecodeTokens split the batch's tokens.
	PrefillTokens, DecodeTokens int
	work                        []Work
}

// SchedulerConfig holds the engine limits.
type SchedulerConfig struct {
	MaxNumSeqs, MaxNumBatchedTokens int
	NumBlocks, BlockSize            int
	PrefixCaching                   bool
}

// Scheduler is vLLM v1's iteration-level continuous-batching scheduler in virtual time:
// running requests first (in admission order, each getting its remaining tokens up to the
// token budget: 1 for a decode, a chunk for an unfinished prefill), preempting the newest
// running request (recompute) when KV blocks run out; then waiting requests FCFS while
// the budget, max_num_seqs and free blocks allow. It is not safe for concurrent use.
type Scheduler struct {
	cfg      SchedulerConfig
	cost     func([]Work) time.Duration
	kv       *kvCache
	waiting  []*Request
	running  []*Request
	it       Iteration
	emitted  []*Request
	finished []*Request

	// Counters since the start.
	Preemptions, PromptTokens, GenerationTokens, Iterations int64
	PrefixQueries, PrefixHits                               int64
}

// NewScheduler returns a scheduler with the given limits; cost returns an iteration's
// duration from its work (e.g. (*Roofline).Iteration).
func NewScheduler(cfg SchedulerConfig, cost func([]Work) time.Duration) (*Scheduler, error) {
	if cfg.MaxNumSeqs < 1 || cfg.MaxNumBatchedTokens < 1 || cfg.NumBlocks < 1 || cfg.BlockSize < 1 {
		return nil, fmt.Errorf("scheduler: limits must be ≥ 1: %+v", cfg)
	}
	return &Scheduler{cfg: cfg, cost: cost, kv: newKVCache(cfg.NumBlocks, cfg.BlockSize, cfg.PrefixCaching)}, nil
}

// ErrTooLong means a request can never fit in the KV cache.
var ErrTooLong = errors.New("request needs more KV-cache blocks than the engine has")

// Add queues r (at the tail of the waiting queue) at virtual time now.
func (s *Scheduler) Add(r *Request, now time.Duration) error {
	if r.PromptTokens < 1 || r.OutputTokens < 1 {
		return fmt.Errorf("scheduler: request %d needs ≥ 1 prompt and output token", r.ID)
	}
	if s.kv.blocksFor(r.PromptTokens+r.OutputTokens) > s.cfg.NumBlocks {
		return fmt.Errorf("request %d (%d tokens): %w", r.ID, r.PromptTokens+r.OutputTokens, ErrTooLong)
	}
	r.Arrival, r.State = now, StateWaiting
	s.waiting = append(s.waiting, r)
	return nil
}

// Abort removes r from the scheduler and frees its blocks; an iteration in flight that
// includes r ignores it when completed.
func (s *Scheduler) Abort(r *Request) {
	switch r.State {
	case StateWaiting:
		s.waiting = remove(s.waiting, r)
	case StateRunning:
		s.running = remove(s.running, r)
		s.kv.free(r)
	default:
		return
	}
	r.State = StateAborted
}

func remove(q []*Request, r *Request) []*Request {
	for i, x := range q {
		if x == r {
			return append(q[:i], q[i+1:]...)
		}
	}
	return q
}

// Running and Waiting return the queue lengths.
func (s *Scheduler) Running() int { return len(s.running) }

// Waiting returns the number of queued (not yet running) requests.
func (s *Scheduler) Waiting() int { return len(s.waiting) }

// KVUsage returns the fraction of KV-cache blocks in use, 0..1.
func (s *Scheduler) KVUsage() float64 { return s.kv.usage() }

// Step plans the iteration starting at virtual time now. It returns nil when there is
// nothing to compute. The plan is valid until the next Step.
func (s *Scheduler) Step(now time.Duration) *Iteration {
	it := &s.it
	it.Start, it.Duration = now, 0
	it.Scheduled, it.Preempted, it.work = it.Scheduled[:0], it.Preempted[:0], it.work[:0]
	it.PrefillTokens, it.DecodeTokens = 0, 0
	budget := s.scheduleRunning(it, s.cfg.MaxNumBatchedTokens)
	if len(it.Preempted) == 0 {
		s.scheduleWaiting(it, budget)
	}
	if len(it.Scheduled) == 0 {
		return nil
	}
	it.Duration = s.cost(it.work)
	s.Iterations++
	return it
}

func (s *Scheduler) scheduleRunning(it *Iteration, budget int) int {
	for i := 0; i < len(s.running) && budget > 0; i++ {
		r := s.running[i]
		n := min(r.numTokens()-r.computed, budget)
		for !s.kv.grow(r, r.computed+n) {
			victim := s.running[len(s.running)-1]
			s.running = s.running[:len(s.running)-1]
			s.preempt(victim)
			it.Preempted = append(it.Preempted, victim)
			if victim == r {
				n = 0
				break
			}
		}
		if n == 0 {
			break
		}
		s.add(it, r, n)
		budget -= n
	}
	return budget
}

// preempt frees r's blocks and puts it back at the head of the waiting queue; its
// generated tokens are kept and recomputed with the prompt on re-admission.
func (s *Scheduler) preempt(r *Request) {
	s.kv.free(r)
	r.computed, r.State = 0, StateWaiting
	r.Preemptions++
	s.Preemptions++
	s.waiting = append([]*Request{r}, s.waiting...)
}

func (s *Scheduler) scheduleWaiting(it *Iteration, budget int) {
	for len(s.waiting) > 0 && budget > 0 && len(s.running) < s.cfg.MaxNumSeqs {
		r := s.waiting[0]
		hits := s.kv.prefixHits(r)
		cached := hits * s.cfg.BlockSize
		n := min(r.numTokens()-cached, budget)
		if !s.kv.admit(r, hits, cached+n) {
			break
		}
		if s.kv.cached != nil {
			s.PrefixQueries += int64(r.numTokens())
			s.PrefixHits += int64(cached)
		}
		r.computed, r.CachedTokens, r.State = cached, cached, StateRunning
		s.waiting = s.waiting[1:]
		s.running = append(s.running, r)
		s.add(it, r, n)
		budget -= n
	}
}

func (s *Scheduler) add(it *Iteration, r *Request, n int) {
	it.Scheduled = append(it.Scheduled, Scheduled{Req: r, Tokens: n, Context: r.computed})
	it.work = append(it.work, Work{Context: r.computed, Tokens: n})
	if r.Generated > 0 && r.computed == r.numTokens()-1 {
		it.DecodeTokens += n
	} else {
		it.PrefillTokens += n
	}
}

// Complete applies the iteration it at its end time: computed tokens advance, sequences
// whose computed length reaches their length sample one token, finished ones leave and
// free their blocks. It returns the requests that emitted a token (in order) and the
// ones that finished; both slices are valid until the next Complete.
func (s *Scheduler) Complete(it *Iteration) (emitted, finished []*Request) {
	end := it.Start + it.Duration
	s.emitted, s.finished = s.emitted[:0], s.finished[:0]
	for _, sc := range it.Scheduled {
		r := sc.Req
		if r.State != StateRunning || r.computed != sc.Context {
			continue // aborted or preempted after planning
		}
		r.computed += sc.Tokens
		s.kv.register(r)
		if r.computed < r.numTokens() {
			continue // prefill chunk, no token yet
		}
		r.Generated++
		s.GenerationTokens++
		r.LastGap = 0
		if r.FirstToken == 0 {
			r.FirstToken = end
			s.PromptTokens += int64(r.PromptTokens)
		} else {
			r.LastGap = end - r.LastToken
		}
		r.LastToken = end
		s.emitted = append(s.emitted, r)
		if r.Generated >= r.OutputTokens {
			r.State = StateFinished
			s.kv.free(r)
			s.finished = append(s.finished, r)
		}
	}
	if len(s.finished) > 0 {
		kept := s.running[:0]
		for _, r := range s.running {
			if r.State == StateRunning {
				kept = append(kept, r)
			}
		}
		clear(s.running[len(kept):])
		s.running = kept
	}
	return s.emitted, s.finished
}
