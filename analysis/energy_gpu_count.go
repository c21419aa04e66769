package analysis

import (
	"github.com/llmcap/llmcap/rundir"
)

// gpuCountWarning is a WarnGPUCount warning when the GPU exporter reported more GPUs in
// some step than one replica uses (gpusPerReplica: report.gpus_per_replica, else the
// simulator's tensor_parallel, else 1). A node exporter lists every GPU of its node, so
// its power, the J per output token and the energy cost then include GPUs the replica
// does not run on (idle ones raise J/token; the per-GPU power the cost is priced at
// falls). ok is false when every step's count fits one replica, or there is no GPU
// telemetry.
func gpuCountWarning(gpu map[int]*GPUStats, gpusPerReplica int) (Warning, bool) {
	most := 0
	for _, g := range gpu {
		if g != nil && g.GPUs > most {
			most = g.GPUs
		}
	}
	if most <= gpusPerReplica || gpusPerReplica <= 0 {
		return Warning{}, false
	}
	w := warning(WarnGPUCount, "the GPU exporter reported %d GPUs but one replica uses %d (report.gpus_per_replica): "+
		"its power, J per output token and energy cost count GPUs the replica does not run on; scrape an exporter "+
		"of the replica's GPUs only, or set report.gpus_per_replica", most, gpusPerReplica)
	w.Data = &rundir.WarningData{Count: most}
	return w, true
}
