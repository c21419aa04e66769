package sweep

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/llmcap/llmcap/plan"
	"github.com/llmcap/llmcap/rundir"
)

// The output-drift probe (plan.Drift, docs/drift.md): the frozen prompt set sent at
// temperature 0 with a fixed seed and max_tokens, drift.repeats times before the ladder
// and once after it (drift.after), each output hashed into drift.jsonl. Its requests are
// no step's: they reach neither records.jsonl nor any statistic.

// driftProbe is one phase of the probe in progress.
type driftProbe struct {
	rn      *runner
	d       plan.Drift
	prompts []string
	psha    []string
	client  requestDoer
	// done are the probe requests already on disk (a resumed run's), by key.
	done map[rundir.DriftKey]rundir.DriftRecord
	// ref are the reference outputs (the first repeat before the ladder) by prompt.
	ref map[int]driftRef
}

// driftRef is a reference output: its hash and text (whole when this invocation sent it,
// else the kept Text of drift.jsonl, cut when truncated).
type driftRef struct {
	sha, text string
	cut       bool
}

// runDrift runs one phase of the drift probe when the plan has one, sending only the
// probe requests drift.jsonl does not hold yet (a resumed run's finished probe is not
// sent again). A failed request is a recorded error line; prompts that cannot be read
// skip the probe with a run.json warning. Errors: ErrInterrupted (the requests finished
// before are on disk), or a write of drift.jsonl failed.
func (rn *runner) runDrift(ctx context.Context, phase rundir.DriftPhase) error {
	d := rn.plan.Drift
	if d == nil || (phase == rundir.DriftAfter && !d.After) {
		return nil
	}
	pr, err := rn.newDriftProbe(*d)
	if err != nil {
		rn.log.Warn("drift probe skipped", "err", err)
		rn.meta.Warnings = appendNew(rn.meta.Warnings, rundir.Warning{Kind: rundir.WarnDriftSkipped, Step: rundir.RunWide,
			Message: fmt.Sprintf("the drift probe did not run: %v", err), Data: &rundir.WarningData{Error: err.Error()}})
		return nil
	}
	if c, ok := pr.client.(*Client); ok {
		defer c.CloseIdleConnections()
	}
	repeats := d.Repeats
	if phase == rundir.DriftAfter {
		repeats = 1
	}
	start, sent := time.Now(), 0
	for r := range repeats {
		n, err := pr.runRepeat(ctx, phase, r)
		sent += n
		if err != nil {
			return err
		}
	}
	if sent > 0 {
		rn.log.Info("drift probe done", "phase", string(phase), "prompts", len(pr.prompts), "repeats", repeats,
			"sent", sent, "elapsed", time.Since(start).Round(time.Millisecond))
	}
	return nil
}

// newDriftProbe loads the prompts, what drift.jsonl already holds and the probe's
// client (temperature 0 whatever target.temperature says).
func (rn *runner) newDriftProbe(d plan.Drift) (*driftProbe, error) {
	prompts, err := d.LoadPrompts()
	if err != nil {
		return nil, err
	}
	pr := &driftProbe{rn: rn, d: d, prompts: prompts, done: map[rundir.DriftKey]rundir.DriftRecord{}, ref: map[int]driftRef{}}
	for _, p := range prompts {
		pr.psha = append(pr.psha, sha256Hex(p))
	}
	recs, _, _, err := rundir.ReadDrift(rn.dir)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", rundir.FileDrift, err)
	}
	for _, r := range recs {
		if r.Prompt < len(prompts) && r.PromptSHA256 == pr.psha[r.Prompt] {
			pr.done[r.Key()] = r
			if r.Phase == rundir.DriftBefore && r.Repeat == 0 && r.OK() {
				pr.ref[r.Prompt] = driftRef{sha: r.SHA256, text: r.Text, cut: r.TextTruncated}
			}
		}
	}
	cfg, err := rn.clientConfig()
	if err != nil {
		return nil, err
	}
	cfg.Temperature, cfg.SaveICL = 0, false
	cfg.ExtraBody = maps.Clone(cfg.ExtraBody)
	delete(cfg.ExtraBody, "temperature") // extra_body would win over the probe's
	delete(cfg.ExtraBody, "seed")
	pr.client = NewClient(cfg)
	return pr, nil
}

// runRepeat sends the prompts of one repeat that are not on disk yet, drift.concurrency
// at a time, and appends their lines in prompt order; it returns how many it sent. On a
// cancelled ctx the finished requests are kept and the cancelled ones left to a resume.
func (pr *driftProbe) runRepeat(ctx context.Context, phase rundir.DriftPhase, repeat int) (int, error) {
	var todo []int
	for i := range pr.prompts {
		if _, ok := pr.done[rundir.DriftKey{Phase: phase, Repeat: repeat, Prompt: i}]; !ok {
			todo = append(todo, i)
		}
	}
	if len(todo) == 0 {
		return 0, nil
	}
	out := make([]rundir.DriftRecord, len(todo))
	texts := make([]string, len(todo))
	jobs := make(chan int)
	var wg sync.WaitGroup
	for range min(pr.d.Concurrency, len(todo)) {
		wg.Go(func() {
			for j := range jobs {
				out[j], texts[j] = pr.send(ctx, phase, repeat, todo[j])
			}
		})
	}
	for j := range todo {
		jobs <- j
	}
	close(jobs)
	wg.Wait()
	keep := out[:0]
	for j := range out {
		if ctx.Err() != nil && !out[j].OK() {
			continue // cancelled: sent again on resume
		}
		pr.compare(&out[j], texts[j])
		keep = append(keep, out[j])
	}
	if err := pr.rn.out.AppendDrift(keep); err != nil {
		return len(keep), fmt.Errorf("sweep: drift probe: %w", err)
	}
	if ctx.Err() != nil {
		return len(keep), ErrInterrupted
	}
	return len(keep), nil
}

// send sends prompt i once and returns its line (without DiffersAt) and whole text.
func (pr *driftProbe) send(ctx context.Context, phase rundir.DriftPhase, repeat, i int) (rundir.DriftRecord, string) {
	req := &Request{MaxTokens: pr.d.MaxTokens, Seed: pr.d.Seed, KeepAnswer: true}
	if pr.rn.plan.Target.API == "completions" {
		req.Prompt = pr.prompts[i]
	} else {
		req.Messages = []ChatMessage{{Role: "user", Content: pr.prompts[i]}}
	}
	rec := &rundir.Record{RequestID: fmt.Sprintf("%s-drift-%s-r%d-p%d", pr.rn.idTag, phase, repeat, i)}
	text := pr.client.Do(ctx, req, rec)
	r := rundir.DriftRecord{RunID: pr.rn.runID, Phase: phase, Repeat: repeat, Prompt: i, PromptSHA256: pr.psha[i],
		SentNs: rec.SentNs, Status: rec.Status, ErrorClass: rec.ErrorClass, Error: rec.Error,
		FinishReason: rec.FinishReason, OutputTokens: rec.OutputTokens}
	if r.Status == "" {
		r.Status = rundir.StatusError
	}
	if r.OK() {
		r.SHA256 = sha256Hex(text)
		r.SetText(text)
	}
	return r, text
}

// compare sets r's DiffersAt against its prompt's reference, or makes r the reference
// (the first repeat before the ladder).
func (pr *driftProbe) compare(r *rundir.DriftRecord, text string) {
	if !r.OK() {
		return
	}
	if r.Phase == rundir.DriftBefore && r.Repeat == 0 {
		pr.ref[r.Prompt] = driftRef{sha: r.SHA256, text: text}
		return
	}
	ref, ok := pr.ref[r.Prompt]
	if !ok || ref.sha == r.SHA256 {
		return
	}
	at := rundir.FirstDiff(ref.text, text)
	if at < 0 { // the kept reference is a cut prefix equal to text: they differ after it
		at = utf8.RuneCountInString(text)
	}
	r.DiffersAt = &at
}

// sha256Hex is the SHA-256 of s in hex.
func sha256Hex(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}
