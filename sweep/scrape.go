package sweep

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/llmcap/llmcap/redact"
	"github.com/llmcap/llmcap/rundir"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// defaultMetricsInterval is the scrape interval when Target.MetricsInterval is unset.
const defaultMetricsInterval = time.Second

// Limits on one scrape: its body in bytes and its sample lines (lines that are neither
// empty nor a "#" comment). A scrape past either is dropped (no sample is written) and
// counts as a failed scrape, warned about once (docs/metrics.md "Server metrics").
const (
	maxScrapeBytes   = 16 << 20
	maxScrapeSamples = 100_000
)

// errScrapeLimit marks a scrape dropped for passing a limit.
var errScrapeLimit = errors.New("scrape limit")

// scrapeLimiter passes a scrape body through, failing with errScrapeLimit once it
// passes maxBytes bytes or maxSamples sample lines, so that a hostile endpoint costs the
// parser at most that much.
type scrapeLimiter struct {
	r                    io.Reader
	bytes, maxBytes      int64
	samples, maxSamples  int
	midLine, commentLine bool
	err                  error
}

func (l *scrapeLimiter) Read(p []byte) (int, error) {
	if l.err != nil {
		return 0, l.err
	}
	if room := l.maxBytes - l.bytes + 1; int64(len(p)) > room {
		p = p[:room]
	}
	n, err := l.r.Read(p)
	l.bytes += int64(n)
	for _, c := range p[:n] {
		if !l.midLine && c != '\n' {
			l.commentLine = c == '#'
			if !l.commentLine {
				l.samples++
			}
		}
		l.midLine = c != '\n'
	}
	switch {
	case l.bytes > l.maxBytes:
		l.err = fmt.Errorf("%w: body passed %d bytes", errScrapeLimit, l.maxBytes)
	case l.samples > l.maxSamples:
		l.err = fmt.Errorf("%w: more than %d samples", errScrapeLimit, l.maxSamples)
	}
	if l.err != nil {
		return 0, l.err
	}
	return n, err
}

// scraper polls Prometheus endpoints at an interval and appends each scrape to
// server-metrics.jsonl, tagged with the step running at scrape time (-1 between steps).
type scraper struct {
	urls     []string
	interval time.Duration
	out      *rundir.Writer
	log      *slog.Logger
	client   *http.Client
	step     atomic.Int64
	cancel   context.CancelFunc
	wg       sync.WaitGroup
}

// startScraper starts scraping urls (nothing when empty); stop it with stop.
func startScraper(urls []string, interval time.Duration, out *rundir.Writer, log *slog.Logger) *scraper {
	s := newScraper(urls, interval, out, log)
	s.start()
	return s
}

// newScraper returns a scraper of urls not yet started: each scrape times out after
// twice the interval, at least 5 s (client.Timeout).
func newScraper(urls []string, interval time.Duration, out *rundir.Writer, log *slog.Logger) *scraper {
	if interval <= 0 {
		interval = defaultMetricsInterval
	}
	s := &scraper{urls: urls, interval: interval, out: out, log: log,
		client: &http.Client{Timeout: max(2*interval, 5*time.Second)}}
	s.step.Store(-1)
	return s
}

// start begins the scrape loop (nothing when there are no URLs).
func (s *scraper) start() {
	if len(s.urls) == 0 {
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	s.cancel = cancel
	s.wg.Add(1)
	go s.loop(ctx)
}

// setStep tags later scrapes with step (-1: between steps).
func (s *scraper) setStep(step int) { s.step.Store(int64(step)) }

// stop ends scraping and waits for the scrape loop to return.
func (s *scraper) stop() {
	if s.cancel == nil {
		return
	}
	s.cancel()
	s.wg.Wait()
	s.cancel = nil
}

func (s *scraper) loop(ctx context.Context) {
	defer s.wg.Done()
	t := time.NewTicker(s.interval)
	defer t.Stop()
	failed := map[string]bool{}
	for {
		for _, u := range s.urls {
			err := s.scrapeOnce(u)
			if err != nil && !failed[u] {
				// Once per URL until it recovers: a scrape over its limits fails every
				// time (errScrapeLimit).
				s.log.Warn("metrics scrape failed", "url", u, "err", err)
			}
			failed[u] = err != nil
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// scrapeOnce fetches and parses one endpoint and appends the sample.
func (s *scraper) scrapeOnce(url string) error {
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		return fmt.Errorf("scrape %s: %w", url, err)
	}
	req.Header.Set("Accept", "text/plain;version=0.0.4")
	at, step := time.Now(), int(s.step.Load())
	resp, err := s.client.Do(req)
	if err != nil {
		return fmt.Errorf("scrape %s: %w", url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		io.Copy(io.Discard, resp.Body)
		return fmt.Errorf("scrape %s: HTTP %d", url, resp.StatusCode)
	}
	vals, err := parseMetrics(&scrapeLimiter{r: resp.Body, maxBytes: maxScrapeBytes, maxSamples: maxScrapeSamples})
	if err != nil {
		return fmt.Errorf("scrape %s: %w", url, err)
	}
	label, _ := redact.URL(url) // the sample names the endpoint without its secrets
	return s.out.AppendMetric(&rundir.MetricSample{TimeNs: unixNs(at), Step: step, URL: label, Values: vals})
}

// parseMetrics parses Prometheus text exposition format and flattens it to
// name{label="v",...} → value; histograms become _sum, _count and _bucket{le=...},
// summaries _sum, _count and {quantile=...}. NaN and ±Inf values are dropped (JSON
// cannot hold them).
func parseMetrics(r io.Reader) (map[string]float64, error) {
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(r)
	if err != nil {
		return nil, fmt.Errorf("parse metrics: %w", err)
	}
	out := map[string]float64{}
	put := func(name string, labels []*dto.LabelPair, extra string, v float64) {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return
		}
		out[metricKey(name, labels, extra)] = v
	}
	for name, f := range fams {
		for _, m := range f.GetMetric() {
			l := m.GetLabel()
			switch {
			case m.GetCounter() != nil:
				put(name, l, "", m.GetCounter().GetValue())
			case m.GetGauge() != nil:
				put(name, l, "", m.GetGauge().GetValue())
			case m.GetUntyped() != nil:
				put(name, l, "", m.GetUntyped().GetValue())
			case m.GetHistogram() != nil:
				h := m.GetHistogram()
				put(name+"_sum", l, "", h.GetSampleSum())
				put(name+"_count", l, "", float64(h.GetSampleCount()))
				for _, b := range h.GetBucket() {
					put(name+"_bucket", l, `le="`+formatLe(b.GetUpperBound())+`"`, float64(b.GetCumulativeCount()))
				}
			case m.GetSummary() != nil:
				sm := m.GetSummary()
				put(name+"_sum", l, "", sm.GetSampleSum())
				put(name+"_count", l, "", float64(sm.GetSampleCount()))
				for _, q := range sm.GetQuantile() {
					put(name, l, `quantile="`+strconv.FormatFloat(q.GetQuantile(), 'g', -1, 64)+`"`, q.GetValue())
				}
			}
		}
	}
	return out, nil
}

func formatLe(v float64) string {
	if math.IsInf(v, 1) {
		return "+Inf"
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// metricKey renders name{a="x",b="y"} with labels sorted by name (extra last).
func metricKey(name string, labels []*dto.LabelPair, extra string) string {
	if len(labels) == 0 && extra == "" {
		return name
	}
	parts := make([]string, 0, len(labels)+1)
	for _, l := range labels {
		parts = append(parts, l.GetName()+"="+strconv.Quote(l.GetValue()))
	}
	sort.Strings(parts)
	if extra != "" {
		parts = append(parts, extra)
	}
	return name + "{" + strings.Join(parts, ",") + "}"
}
