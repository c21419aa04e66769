package sweep

import (
	"slices"
	"testing"
	"time"

	"github.com/llmcap/llmcap/plan"
)

// TestShardSharesAddUpToTheStep: concurrency, users and request counts split over any
// shard count add up to the step's and differ by at most one between shards, the
// larger shares first; a rate splits into equal parts.
func TestShardSharesAddUpToTheStep(t *testing.T) {
	for n := 0; n <= 70; n++ {
		for count := 1; count <= 9; count++ {
			sum, lo, hi := 0, n, 0
			for i := range count {
				s := splitInt(n, i, count)
				if i > 0 && s > splitInt(n, i-1, count) {
					t.Fatalf("splitInt(%d, %d, %d) = %d above shard %d's", n, i, count, s, i-1)
				}
				sum, lo, hi = sum+s, min(lo, s), max(hi, s)
			}
			if sum != n || hi-lo > 1 {
				t.Fatalf("%d over %d shards: shares sum to %d, spread %d", n, count, sum, hi-lo)
			}
		}
	}
	st := plan.Step{Schedule: plan.ScheduleConcurrency, Concurrency: 10, Requests: 7, Warmup: plan.Warmup{Requests: 5, Duration: time.Second}}
	var conc, reqs, warm []int
	for i := range 4 {
		share, part := shareOf(st, &Shard{Index: i, Count: 4})
		conc, reqs, warm = append(conc, share.Concurrency), append(reqs, share.Requests), append(warm, share.Warmup.Requests)
		if part.Load != float64(share.Concurrency) || part.Requests != share.Requests || part.Index != i || part.Count != 4 {
			t.Errorf("shard %d's part %+v does not describe its share %+v", i, part, share)
		}
		if share.Warmup.Duration != time.Second || share.Schedule != st.Schedule {
			t.Errorf("shard %d's share changed the step's schedule or warm-up duration: %+v", i, share)
		}
	}
	if want := []int{3, 3, 2, 2}; !slices.Equal(conc, want) {
		t.Errorf("concurrency 10 over 4 shards: %v, want %v", conc, want)
	}
	if want := []int{2, 2, 2, 1}; !slices.Equal(reqs, want) {
		t.Errorf("7 requests over 4 shards: %v, want %v", reqs, want)
	}
	if want := []int{2, 1, 1, 1}; !slices.Equal(warm, want) {
		t.Errorf("5 warm-up requests over 4 shards: %v, want %v", warm, want)
	}
	rate := plan.Step{Schedule: plan.ScheduleRate, Rate: 9}
	for i := range 3 {
		share, part := shareOf(rate, &Shard{Index: i, Count: 3})
		if share.Rate != 9 || part.Load != 3 {
			t.Errorf("rate 9 over 3 shards, shard %d: step rate %g (want the whole 9: arrivals are thinned), part load %g (want 3)", i, share.Rate, part.Load)
		}
	}
	users := plan.Step{Schedule: plan.ScheduleUsers, Users: 5}
	if share, part := shareOf(users, &Shard{Index: 1, Count: 2}); share.Users != 2 || part.Load != 2 {
		t.Errorf("5 users over 2 shards, shard 1: %d users, load %g; want 2", share.Users, part.Load)
	}
}

// TestShardsOwnEveryItemOnce: every item of a step's one sequence (an arrival, a
// trace row, a session) is owned by exactly one shard, and a shard's k-th item is the
// global one it owns.
func TestShardsOwnEveryItemOnce(t *testing.T) {
	for count := 1; count <= 7; count++ {
		owners := make([]int, 200)
		for i := range count {
			sh := &Shard{Index: i, Count: count}
			for k := range owners {
				if sh.owns(k) {
					owners[k]++
				}
			}
			for k := 0; sh.global(k) < len(owners); k++ {
				if g := sh.global(k); !sh.owns(g) {
					t.Fatalf("shard %d/%d's item %d is global %d, which it does not own", i, count, k, g)
				}
			}
		}
		for k, n := range owners {
			if n != 1 {
				t.Fatalf("%d shards: item %d owned by %d shards", count, k, n)
			}
		}
	}
	var none *Shard
	if !none.owns(5) || none.global(5) != 5 {
		t.Error("an unsharded sweep owns every item as it is")
	}
}
