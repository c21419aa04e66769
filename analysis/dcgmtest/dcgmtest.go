// Package dcgmtest serves a recorded NVIDIA dcgm-exporter scrape on a real loopback
// HTTP server, as tests of llmcap's GPU telemetry scrape it: the recorded gauges as
// they are, and DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION (mJ since boot) advancing as each
// GPU's energy meter would at its recorded DCGM_FI_DEV_POWER_USAGE, so that the energy
// over any window is power × time.
//
// testdata/dcgm-exporter-2xH100.prom is one scrape of two H100 80GB HBM3 GPUs written
// in dcgm-exporter 3.x's exposition format (etc/default-counters.csv's families, their
// # HELP and # TYPE lines, labels gpu, UUID, pci_bus_id, device, modelName, Hostname,
// DCGM_FI_DRIVER_VERSION); its values are plausible figures for a loaded server, not a
// capture from one.
package dcgmtest

import (
	_ "embed"
	"fmt"
	"net"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

//go:embed testdata/dcgm-exporter-2xH100.prom
var recorded string

// Energy and power family names, as dcgm-exporter writes them.
const (
	familyEnergy = "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION"
	familyPower  = "DCGM_FI_DEV_POWER_USAGE"
)

// GPU is one GPU of the recorded scrape, read with Prometheus's own text parser: its
// labels and the gauges llmcap reads.
type GPU struct {
	Index, UUID, Model, Hostname string
	UtilPct, FBUsedMiB, PowerW   float64
	// EnergyMJ is the energy counter as recorded (mJ since boot).
	EnergyMJ float64
}

// Recorded is the recorded scrape's GPUs in gpu index order.
func Recorded() ([]GPU, error) {
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(strings.NewReader(recorded))
	if err != nil {
		return nil, fmt.Errorf("dcgmtest: parse the recorded scrape: %w", err)
	}
	byIndex := map[string]*GPU{}
	var order []string
	read := func(family string, set func(*GPU, float64)) {
		for _, m := range fams[family].GetMetric() {
			l := map[string]string{}
			for _, lp := range m.GetLabel() {
				l[lp.GetName()] = lp.GetValue()
			}
			g := byIndex[l["gpu"]]
			if g == nil {
				g = &GPU{Index: l["gpu"], UUID: l["UUID"], Model: l["modelName"], Hostname: l["Hostname"]}
				byIndex[l["gpu"]] = g
				order = append(order, l["gpu"])
			}
			v := m.GetGauge().GetValue()
			if m.GetCounter() != nil {
				v = m.GetCounter().GetValue()
			}
			set(g, v)
		}
	}
	read("DCGM_FI_DEV_GPU_UTIL", func(g *GPU, v float64) { g.UtilPct = v })
	read("DCGM_FI_DEV_FB_USED", func(g *GPU, v float64) { g.FBUsedMiB = v })
	read(familyPower, func(g *GPU, v float64) { g.PowerW = v })
	read(familyEnergy, func(g *GPU, v float64) { g.EnergyMJ = v })
	out := make([]GPU, 0, len(order))
	for _, i := range order {
		out = append(out, *byIndex[i])
	}
	return out, nil
}

// Exporter is the loopback exporter; URL is its /metrics endpoint.
type Exporter struct {
	URL     string
	srv     *http.Server
	start   time.Time
	power   map[string]float64 // UUID → W
	noCount bool
	mu      sync.Mutex
	scrapes int
}

// Options: WithoutEnergyCounter leaves DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION out (an
// exporter whose counters CSV lacks it), so the energy must come from the power.
type Options struct{ WithoutEnergyCounter bool }

// Start serves the recorded scrape on 127.0.0.1 (a free port) until Close.
func Start(o Options) (*Exporter, error) {
	gpus, err := Recorded()
	if err != nil {
		return nil, err
	}
	e := &Exporter{start: time.Now(), power: map[string]float64{}, noCount: o.WithoutEnergyCounter}
	for _, g := range gpus {
		e.power[g.UUID] = g.PowerW
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("dcgmtest: listen: %w", err)
	}
	e.URL = "http://" + ln.Addr().String() + "/metrics"
	mux := http.NewServeMux()
	mux.HandleFunc("/metrics", e.serve)
	e.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go e.srv.Serve(ln) //nolint:errcheck // ends with Close
	return e, nil
}

// Close stops the server.
func (e *Exporter) Close() { e.srv.Close() }

// Scrapes is the number of scrapes served.
func (e *Exporter) Scrapes() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.scrapes
}

// uuidLabel finds a sample line's UUID label.
var uuidLabel = regexp.MustCompile(`UUID="([^"]*)"`)

// serve writes the recorded scrape, the energy counter advanced by power × the time
// since Start (W × ms = mJ, whole mJ as dcgm-exporter writes it).
func (e *Exporter) serve(w http.ResponseWriter, _ *http.Request) {
	elapsedMs := float64(time.Since(e.start).Microseconds()) / 1000
	e.mu.Lock()
	e.scrapes++
	e.mu.Unlock()
	var b strings.Builder
	for _, line := range strings.SplitAfter(recorded, "\n") {
		isEnergy := strings.HasPrefix(line, familyEnergy+"{") || strings.HasSuffix(strings.TrimSpace(line), " "+familyEnergy+" counter") ||
			strings.HasPrefix(line, "# HELP "+familyEnergy+" ")
		if isEnergy && e.noCount {
			continue
		}
		if strings.HasPrefix(line, familyEnergy+"{") {
			cut := strings.LastIndexByte(strings.TrimRight(line, "\n"), ' ')
			base, err := strconv.ParseFloat(strings.TrimSpace(line[cut:]), 64)
			if m := uuidLabel.FindStringSubmatch(line); err == nil && m != nil {
				line = fmt.Sprintf("%s %.0f\n", line[:cut], base+e.power[m[1]]*elapsedMs)
			}
		}
		b.WriteString(line)
	}
	w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	_, _ = w.Write([]byte(b.String()))
}
