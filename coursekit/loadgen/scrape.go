package loadgen

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/llmperf-course/course/coursekit/internal/safetext"
	"github.com/llmperf-course/course/coursekit/trace"
)

// Scrape is one line of the --metrics-url sidecar (trace.Scrape: the
// trace package reads it back).
type Scrape = trace.Scrape

// startScrapes GETs cfg.MetricsURL every cfg.MetricsEvery and writes one
// Scrape per line to cfg.MetricsSink; the returned func stops it after the
// scrape under way and reports the first write error.
//
// Stopping lets the scrape under way finish (each has its own 5 s timeout)
// and starts none after it. Stopping once cancelled the scrapes' context,
// and a tick ready at the same instant could still win the select: the next
// scrape then started cancelled and wrote a line with no values, only
// "context canceled" (seen under load in TestBenchMetricsSidecar, t_ms 1902.8,
// dur_ms 0.072, the last line of a 1 s run).
func (r *runner) startScrapes() func() error {
	c := r.cfg
	if c.MetricsURL == "" || c.MetricsSink == nil {
		return func() error { return nil }
	}
	every := c.MetricsEvery
	if every <= 0 {
		every = time.Second
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var werr error
	enc := json.NewEncoder(HideWriter(c.MetricsSink, r.hide)) // one Write a line
	wg.Go(func() {
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			if err := enc.Encode(r.scrape(context.Background())); err != nil && werr == nil {
				werr = err
			}
			select {
			case <-t.C:
			case <-stop:
				return
			}
			select { // a tick and the stop ready together: select picks either
			case <-stop:
				return
			default:
			}
		}
	})
	return func() error { close(stop); wg.Wait(); return werr }
}

// scrapeTimeout bounds one scrape (a variable only so that a test of the
// byte caps does not depend on how fast a loaded machine parses 16 MiB).
var scrapeTimeout = 5 * time.Second

func (r *runner) scrape(ctx context.Context) (s Scrape) {
	s.TMS = r.now()
	defer func() { s.DurMS = math.Round((r.now()-s.TMS)*1e3) / 1e3 }()
	ctx, cancel := context.WithTimeout(ctx, scrapeTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, r.cfg.MetricsURL, nil)
	if err != nil {
		s.Error = redactErr(err)
		return s
	}
	if sameOrigin(r.cfg.URL, r.cfg.MetricsURL) {
		// The token (--api-key-env) goes only to the origin of --url; a
		// /metrics elsewhere is scraped without the run's headers.
		for k, v := range r.cfg.Header {
			req.Header[k] = v
		}
	}
	resp, err := r.client.Do(req) // never follows a redirect (oneOrigin)
	if err != nil {
		s.Error = redactErr(err)
		if msg, ok := serverFault(err); ok {
			s.Error = "GET " + RedactURL(r.cfg.MetricsURL) + ": " + msg
		}
		return s
	}
	defer resp.Body.Close()
	if isRedirect(resp.StatusCode) {
		s.Error = "GET " + RedactURL(r.cfg.MetricsURL) + ": " + redirectError(resp)
		return s
	}
	if resp.StatusCode != http.StatusOK {
		io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		s.Error = "GET " + RedactURL(r.cfg.MetricsURL) + ": " + safetext.Name(resp.Status)
		return s
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(&capReader{r: resp.Body, maxBytes: MaxMetricsBytes, maxLines: MaxMetricsLines})
	if e, ok := asCap(err); ok {
		s.Error = "GET " + RedactURL(r.cfg.MetricsURL) + ": " + e.Error()
		return s
	}
	if err != nil {
		s.Error = "not Prometheus text: " + cut(err.Error(), 4*maxShown)
		return s
	}
	s.Values = map[string]float64{}
	for name, f := range fams {
		for _, m := range f.GetMetric() {
			var v float64
			switch {
			case m.Gauge != nil:
				v = m.GetGauge().GetValue()
			case m.Counter != nil:
				v = m.GetCounter().GetValue()
			case m.Untyped != nil:
				v = m.GetUntyped().GetValue()
			default:
				continue // histograms and summaries: their _count/_sum are not kept
			}
			if math.IsNaN(v) || math.IsInf(v, 0) {
				continue // JSON has no NaN or Inf (the header's conditions.metrics_scrape says so)
			}
			var ls []string
			for _, l := range m.GetLabel() {
				ls = append(ls, fmt.Sprintf("%s=%q", l.GetName(), l.GetValue()))
			}
			sort.Strings(ls)
			key := name
			if len(ls) > 0 {
				key += "{" + strings.Join(ls, ",") + "}"
			}
			if len(key) > MaxSeriesKeyBytes {
				s.Capped++ // left out: the sidecar line must stay readable
				continue
			}
			s.Values[key] = v
		}
	}
	capSeries(&s, MaxScrapeSeries)
	return s
}

// capSeries keeps at most max of s.Values: the request gauges first (the report draws them),
// then the others in name order; s.Capped counts the series left out (with those left out
// for a key over MaxSeriesKeyBytes).
func capSeries(s *Scrape, max int) {
	if len(s.Values) <= max {
		return
	}
	keys := make([]string, 0, len(s.Values))
	for k := range s.Values {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		gi, gj := trace.IsRequestGauge(keys[i]), trace.IsRequestGauge(keys[j])
		if gi != gj {
			return gi
		}
		return keys[i] < keys[j]
	})
	for _, k := range keys[max:] {
		delete(s.Values, k)
	}
	s.Capped += len(keys) - max
}
