package analysis

import "github.com/llmcap/llmcap/plan"

// AnalyzeUnder is Analyze with spec in place of the SLA in dir's run.json: every step
// is judged, and the goodput, capacity, bottleneck, users and sizing found, under spec
// (its bounds, error-rate limit and think time — but a users ladder keeps its own think
// time, which is how long its users thought, part of what was measured), so runs
// measured under different SLAs can be compared under one (`llmcap compare --sla`). The Analysis's Plan.SLA and
// Constraints are spec's. Nothing is written: the run's own analysis.json stays as it
// is. Errors are Analyze's (they name dir).
func AnalyzeUnder(dir string, spec plan.SLA) (*Analysis, error) { return analyzeRun(dir, &spec) }
