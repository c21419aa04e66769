package rundir

import (
	"fmt"
	"time"
)

// ShardInfo is run.json's `shard`: this run directory holds shard Index (0-based) of
// Count of a sharded sweep (llmcap sweep --shard I/N, docs/distributed.md). Every shard
// runs the same plan (PlanHash, plan.Plan.Hash) on one timeline: step k starts at
// StartAt + Offsets[k] in the reference clock, which this shard's clock reads as that
// plus Clock.OffsetNs. llmcap merge combines the shards into one run.
type ShardInfo struct {
	Index    int    `json:"index"`
	Count    int    `json:"count"`
	PlanHash string `json:"plan_hash"`
	// StartAt is the common start of the first step, in the reference clock.
	StartAt time.Time `json:"start_at"`
	// Clock is this shard's clock against the reference.
	Clock ClockSync `json:"clock"`
}

// Label is "shard I/N".
func (s ShardInfo) Label() string { return fmt.Sprintf("shard %d/%d", s.Index, s.Count) }

// ClockReference names what a shard's clock was measured against.
type ClockReference string

// The clock references, best first.
const (
	// ClockRendezvous: shard 0's clock, read over HTTP from its rendezvous endpoint
	// (offset at the middle of the fastest round trip, uncertainty half of it).
	ClockRendezvous ClockReference = "rendezvous"
	// ClockServerDate: the target server's HTTP Date header (1 s resolution), read at
	// the instant its second changes, so the uncertainty is the polling gap and the
	// round trip around that change, not the header's resolution.
	ClockServerDate ClockReference = "server-date"
	// ClockSelf: the shard is the reference (shard 0 of a rendezvous).
	ClockSelf ClockReference = "self"
	// ClockUnmeasured: nothing to measure against (the server sends no Date header);
	// the host clocks are trusted as they are (NTP) and the uncertainty is unknown.
	ClockUnmeasured ClockReference = "unmeasured"
)

// ClockSync is a shard's clock offset: OffsetNs = local clock − reference clock, known
// within ± UncertaintyNs (−1: unknown, ClockUnmeasured). MeasuredAt is the local time
// of the measurement.
type ClockSync struct {
	Reference     ClockReference `json:"reference"`
	OffsetNs      int64          `json:"offset_ns"`
	UncertaintyNs int64          `json:"uncertainty_ns"`
	MeasuredAt    time.Time      `json:"measured_at"`
}

// ShardStep is a shard's part in one step (StepSummary.Shard): its share of the load
// (Load: concurrency, users or req/s; Requests: of a request-bounded window), the
// step's planned start on the common timeline in this shard's clock (PlannedStartNs,
// unix ns), and Late when the step started more than ShardLateAfter after it (its
// shard was behind the timeline: a resumed shard re-running a step alone, or a step
// that overran its slot).
type ShardStep struct {
	Index          int     `json:"index"`
	Count          int     `json:"count"`
	Load           float64 `json:"load"`
	Requests       int     `json:"requests,omitempty"`
	PlannedStartNs int64   `json:"planned_start_ns"`
	Late           bool    `json:"late,omitempty"`
	Resumed        bool    `json:"resumed,omitempty"`
}

// ShardLateAfter is how far behind its planned start a shard's step may begin and still
// be on the timeline (ShardStep.Late).
const ShardLateAfter = 250 * time.Millisecond

// MergeInfo is run.json's `merged`: the run was combined by llmcap merge from Count
// shards (Shards, by index).
type MergeInfo struct {
	Count  int           `json:"count"`
	Shards []MergedShard `json:"shards"`
	// AlignNs is the largest spread of the shards' step starts (reference clock) over
	// the steps every shard ran on the timeline.
	AlignNs int64 `json:"align_ns"`
}

// MergedShard is one merged shard: its directory as given, run id, host, clock and the
// records it gave.
type MergedShard struct {
	Index   int       `json:"index"`
	Dir     string    `json:"dir"`
	RunID   string    `json:"run_id"`
	Host    string    `json:"host"`
	Clock   ClockSync `json:"clock"`
	Records int       `json:"records"`
}
