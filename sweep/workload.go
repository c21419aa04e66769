package sweep

import (
	"container/heap"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"strings"
	"sync"
	"time"

	"github.com/llmcap/llmcap/plan"
)

// promptVocabulary is the word list prompt text is drawn from. Every entry is one
// whitespace-free word, so the number of words equals the intended prompt tokens on the
// simulator (1 word = 1 token); real tokenizers give a similar count for such words.
var promptVocabulary = strings.Fields(`the of and to in is was for on that with as by at
from his her they this have are be had not one but all were when we there can an your
which their said if do will each about how up out them then she many some so these would
other into has more two like him time see no could make than first been its who now
people my made over did down only way find use may water long little very after words
called just where most know get through back much go good new write our me man too any
day same right look think also around another came come work three word must because does
part even place well such here take why things help put years different away again off
went old number great tell men say small every found still between name should home big
give air line set own under read last never us left end along while might next sound below
saw something thought both few those always looked show large often together asked house
world going want school important until form food keep children feet land side without boy
once animals life enough took sometimes four head above kind began almost live page got
earth need far hand high year mother light parts country father let night following picture
being study second eyes soon times story boys since white days ever paper hard near sentence
better best across during today others however sure means knew try told young miles sun ways
thing whole hear example heard several change answer room sea against top turned learn point
city play toward five using himself usually`)

// appendWords writes n words drawn from r to b, each preceded by a space when b is
// not empty.
func appendWords(b *strings.Builder, r *rand.Rand, n int) {
	for i := 0; i < n; i++ {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(promptVocabulary[r.IntN(len(promptVocabulary))])
	}
}

// seededRand returns a generator determined by the plan seed and the given keys.
func seededRand(seed int64, keys ...uint64) *rand.Rand {
	h := fnv.New64a()
	var buf [8]byte
	for _, k := range append([]uint64{uint64(seed)}, keys...) {
		for i := range buf {
			buf[i] = byte(k >> (8 * i))
		}
		h.Write(buf[:])
	}
	s := h.Sum64()
	return rand.New(rand.NewPCG(s, s^0x9e3779b97f4a7c15))
}

func stringKey(s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return h.Sum64()
}

// segmentGen draws requests of one segment.
type segmentGen struct {
	name    string
	weight  float64
	prompt  sampler
	output  sampler
	prefix  string // shared prefix text (prefixLen words)
	prefLen int
	turns   int
	think   sampler
	trace   *traceData // set for trace segments: lengths (and prefixes) from its rows
}

// newSegmentGen builds the generator of segment i of p.
func newSegmentGen(p *plan.Plan, i int, traceBase string) (*segmentGen, error) {
	s := p.Segments[i]
	path := fmt.Sprintf("segments[%d]", i)
	g := &segmentGen{name: s.Name, weight: s.Weight, turns: 1}
	if g.weight <= 0 {
		g.weight = 1
	}
	if s.Trace != nil {
		td, err := loadTrace(*s.Trace, traceBase)
		if err != nil {
			return nil, fmt.Errorf("%s.trace: %w", path, err)
		}
		g.trace = td
		return g, nil
	}
	var err error
	if g.prompt, err = newSampler(s.PromptTokens, path+".prompt_tokens"); err != nil {
		return nil, err
	}
	if g.output, err = newSampler(s.OutputTokens, path+".output_tokens"); err != nil {
		return nil, err
	}
	if s.SharedPrefixTokens > 0 {
		var b strings.Builder
		appendWords(&b, seededRand(p.Seed, 0x5052, stringKey(s.Name)), s.SharedPrefixTokens)
		g.prefix, g.prefLen = b.String(), s.SharedPrefixTokens
	}
	if mt := s.MultiTurn; mt != nil && mt.Turns > 1 {
		g.turns = mt.Turns
		if g.think, err = newSampler(mt.ThinkTimeS, path+".multi_turn.think_time_s"); err != nil {
			return nil, err
		}
	}
	return g, nil
}

// userText draws the text of one user message: the shared prefix (first turn only) and
// unique words, totalling the drawn prompt tokens (at least one unique word).
func (g *segmentGen) userText(r *rand.Rand, first bool, seed int64) (text string, words, output int) {
	if g.trace != nil {
		row := g.trace.rows[r.IntN(len(g.trace.rows))]
		return g.trace.promptText(row, seed, r), row.Prompt, row.Output
	}
	n := tokensFrom(g.prompt, r)
	output = tokensFrom(g.output, r)
	var b strings.Builder
	if first && g.prefLen > 0 {
		b.WriteString(g.prefix)
		n = max(n-g.prefLen, 1)
		words = g.prefLen
	}
	appendWords(&b, r, n)
	return b.String(), words + n, output
}

// session is one user conversation: turns with history appended.
type session struct {
	id      string
	seg     *segmentGen
	rng     *rand.Rand
	turn    int // next turn (0-based)
	history []ChatMessage
	words   int // words in history
	readyAt time.Time
	// user: the session belongs to one user of a users step (userJob), who waits out
	// its think time itself; done then leaves it out of the ready heap.
	user bool
}

// job is one request to send.
type job struct {
	seg       *segmentGen
	sess      *session
	turn      int
	req       Request
	intendedP int
	intendedO int
}

// workload hands out the jobs of one step: new sessions drawn by segment weight, or the
// next turn of a session whose think time has elapsed. Safe for concurrent use.
type workload struct {
	mu       sync.Mutex
	seed     int64
	step     int
	api      string
	segs     []*segmentGen
	total    float64
	nextSess int
	nextReq  int
	ready    sessionHeap
	// shard, when set, makes the sessions and request seeds the shard's part of the
	// step's one sequence (Shard.global): no two shards send the same session.
	shard *Shard
}

func newWorkload(p *plan.Plan, step int, segs []*segmentGen) *workload {
	w := &workload{seed: p.Seed, step: step, api: p.Target.API, segs: segs}
	for _, s := range segs {
		w.total += s.weight
	}
	return w
}

// next returns the next job at time now.
func (w *workload) next(now time.Time) *job {
	w.mu.Lock()
	defer w.mu.Unlock()
	var s *session
	if len(w.ready) > 0 && !w.ready[0].readyAt.After(now) {
		s = heap.Pop(&w.ready).(*session)
	} else {
		s = w.newSession()
	}
	j := w.build(s)
	w.nextReq++
	return j
}

func (w *workload) newSession() *session {
	id := w.shard.global(w.nextSess)
	w.nextSess++
	r := seededRand(w.seed, uint64(w.step), uint64(id))
	return w.sessionWith(fmt.Sprintf("s%04d-u%06d", w.step, id), r)
}

// sessionWith starts a session named id whose segment (by weight) and content are
// drawn from r.
func (w *workload) sessionWith(id string, r *rand.Rand) *session {
	seg := w.segs[0]
	if len(w.segs) > 1 {
		x := r.Float64() * w.total
		for _, g := range w.segs {
			seg = g
			if x -= g.weight; x < 0 {
				break
			}
		}
	}
	return &session{id: id, seg: seg, rng: r}
}

// build draws the next turn of s as a job.
func (w *workload) build(s *session) *job {
	text, words, out := s.seg.userText(s.rng, s.turn == 0, w.seed)
	j := &job{seg: s.seg, sess: s, turn: s.turn, intendedO: out, intendedP: s.words + words}
	j.req.MaxTokens = out
	if w.seed != 0 {
		j.req.Seed = w.seed + int64(w.shard.global(w.nextReq))
	}
	msg := ChatMessage{Role: "user", Content: text}
	if w.api == "completions" {
		var b strings.Builder
		for _, m := range s.history {
			b.WriteString(m.Content)
			b.WriteByte('\n')
		}
		b.WriteString(text)
		j.req.Prompt = b.String()
	} else {
		j.req.Messages = append(append(make([]ChatMessage, 0, len(s.history)+1), s.history...), msg)
	}
	s.history = append(s.history, msg)
	s.words += words
	s.turn++
	j.req.KeepAnswer = s.turn < s.seg.turns // the next turn's history needs the answer
	if s.seg.turns > 1 {
		j.req.SessionID = s.id // sent in the session header, the same on every turn
	}
	return j
}

// done tells the workload j finished with answer; a session with turns left becomes
// ready again after its think time (readyAt): in the ready heap, or, for a user's
// session, for its user to continue (session.nextTurn). A failed turn ends the session.
func (w *workload) done(j *job, answer string, ok bool, now time.Time) {
	s := j.sess
	if !ok || s.turn >= s.seg.turns {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	s.history = append(s.history, ChatMessage{Role: "assistant", Content: answer})
	s.words += len(strings.Fields(answer))
	think := 0.0
	if s.seg.think != nil {
		think = min(max(s.seg.think.sample(s.rng), 0), plan.MaxDuration.Seconds()) // no Duration overflow
	}
	s.readyAt = now.Add(time.Duration(think * float64(time.Second)))
	if !s.user {
		heap.Push(&w.ready, s)
	}
}

// sessionHeap orders sessions by readyAt.
type sessionHeap []*session

func (h sessionHeap) Len() int           { return len(h) }
func (h sessionHeap) Less(i, j int) bool { return h[i].readyAt.Before(h[j].readyAt) }
func (h sessionHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *sessionHeap) Push(x any)        { *h = append(*h, x.(*session)) }
func (h *sessionHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
