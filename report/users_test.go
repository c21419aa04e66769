package report

import (
	"strings"
	"testing"
	"time"

	"github.com/llmcap/llmcap/analysis"
	"github.com/llmcap/llmcap/plan"
)

// TestUsersLadderWords: a users ladder's report puts users on the load axis and in the
// capacity, labels the users per replica as measured and says how they were measured;
// a concurrency ladder's users are labelled as estimated.
func TestUsersLadderWords(t *testing.T) {
	p := plan.Plan{Ladder: plan.Ladder{Users: []int{50, 150, 300}, ThinkTimeDist: plan.ThinkConstant},
		SLA: plan.SLA{ThinkTime: 10 * time.Second}}
	a := &analysis.Analysis{Schedule: plan.ScheduleUsers, Plan: p, Overall: analysis.Capacity{
		Method: analysis.MethodMeasured, UsersSource: analysis.UsersMeasured, UsersWithThinkTime: 191.4, Users: 191,
		MaxConcurrencyWithinSLA: 18.5, ThroughputAtCapacity: 17, ThinkTimeS: 10}}
	kv := map[string]string{}
	for _, k := range keyNumbers(a) {
		kv[k.Key] = k.Value
	}
	for key, want := range map[string]string{
		"Capacity per replica (users)":                    "191 users",
		"Users per replica (measured, think time 10.0 s)": "191",
	} {
		if got := kv[key]; got != want {
			t.Errorf("key number %q = %q, want %q (all: %v)", key, got, want, kv)
		}
	}
	if got := loadLabel(a); got != "users (each thinking 10.0 s between requests)" {
		t.Errorf("load axis %q", got)
	}
	if got := thinkTimeText(a); !strings.Contains(got, "10.0 s on average (constant). Users are measured") {
		t.Errorf("think-time text %q", got)
	}
	conv := &analysis.Analysis{Schedule: plan.ScheduleConcurrency, Plan: plan.Plan{SLA: p.SLA}, Overall: analysis.Capacity{
		Method: analysis.MethodMeasured, UsersSource: analysis.UsersConverted, UsersWithThinkTime: 226.2, Users: 226,
		MaxConcurrencyWithinSLA: 23, ThinkTimeS: 10}}
	if got := usersLabel(conv.Overall); got != "Users per replica (estimated: X · (R + Z), think time 10.0 s)" {
		t.Errorf("converted users label %q", got)
	}
	if got := capacityText(conv, conv.Overall); got != "23 concurrency" {
		t.Errorf("converted capacity %q, want the concurrency", got)
	}
	if got := thinkTimeText(conv); !strings.Contains(got, "users are estimated") {
		t.Errorf("converted think-time text %q", got)
	}
}
