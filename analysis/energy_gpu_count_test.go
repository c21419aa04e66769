package analysis

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/llmcap/llmcap/sweep"
)

// nodeExporter serves, on 127.0.0.1, a dcgm-exporter scrape of an 8-GPU node: GPUs 0
// and 1 loaded (500 W each), 2 to 7 idle (70 W), each energy counter advancing at its
// power. It returns the /metrics URL and a stop function.
func nodeExporter(t *testing.T) (string, func()) {
	t.Helper()
	start := time.Now()
	power := func(gpu int) float64 {
		if gpu < 2 {
			return 500
		}
		return 70
	}
	lbl := func(gpu int) string {
		return fmt.Sprintf(`gpu="%d",UUID="GPU-%08d",pci_bus_id="00000000:%02X:00.0",device="nvidia%d",modelName="NVIDIA H100 80GB HBM3",Hostname="gpu-node-07"`, gpu, gpu, 0x18+gpu, gpu)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/metrics", func(w http.ResponseWriter, _ *http.Request) {
		ms := float64(time.Since(start).Microseconds()) / 1000
		var b strings.Builder
		for _, f := range []struct{ name, typ string }{{"DCGM_FI_DEV_POWER_USAGE", "gauge"},
			{"DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", "counter"}, {"DCGM_FI_DEV_GPU_UTIL", "gauge"}} {
			fmt.Fprintf(&b, "# HELP %s x\n# TYPE %s %s\n", f.name, f.name, f.typ)
			for g := 0; g < 8; g++ {
				v := power(g)
				switch f.name {
				case "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION":
					v = 1e10 + power(g)*ms
				case "DCGM_FI_DEV_GPU_UTIL":
					v = map[bool]float64{true: 95, false: 0}[g < 2]
				}
				fmt.Fprintf(&b, "%s{%s} %.3f\n", f.name, lbl(g), v)
			}
		}
		_, _ = w.Write([]byte(b.String()))
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go srv.Serve(ln) //nolint:errcheck // ends with Close
	return "http://" + ln.Addr().String() + "/metrics", func() { srv.Close() }
}

// An exporter on an 8-GPU node reports every GPU while the replica runs on 2 (the
// simulator's tensor_parallel): J per output token then counts six idle GPUs' power and
// the energy cost per month spreads the node's power over them. The analysis says so in
// a warning naming both counts, rather than reporting those figures as the replica's.
func TestGPUTelemetryWarnsWhenExporterReportsMoreGPUsThanTheReplica(t *testing.T) {
	if testing.Short() {
		t.Skip("drives the embedded simulator for about 6 s: skipped with -short")
	}
	url, stop := nodeExporter(t)
	defer stop()
	dir := t.TempDir()
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	if err := sweep.Run(context.Background(), dcgmSimPlan(url), sweep.Options{OutDir: dir, Logger: quiet}); err != nil {
		t.Fatal(err)
	}
	a, err := Analyze(dir)
	if err != nil {
		t.Fatal(err)
	}
	g := a.Segments[0].Steps[0].GPU
	if g == nil || g.GPUs != 8 {
		t.Fatalf("step 0 GPU telemetry %+v, want the exporter's 8 GPUs", g)
	}
	for _, w := range a.Warnings {
		if w.Kind == WarnGPUCount && w.Data != nil && w.Data.Count == 8 && strings.Contains(w.Message, "replica uses 2") {
			return
		}
	}
	t.Errorf("no warning that the exporter reported 8 GPUs for a 2-GPU replica; warnings: %+v", a.Warnings)
}
