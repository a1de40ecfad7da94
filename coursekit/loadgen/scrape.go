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

	"github.com/llmperf-course/course/coursekit/trace"
)

// Scrape is one line of the --metrics-url sidecar (trace.Scrape: the
// trace package reads it back).
type Scrape = trace.Scrape

// startScrapes GETs cfg.MetricsURL every cfg.MetricsEvery and writes one
// Scrape per line to cfg.MetricsSink; the returned func stops it after the
// scrape under way and reports the first write error.
func (r *runner) startScrapes() func() error {
	c := r.cfg
	if c.MetricsURL == "" || c.MetricsSink == nil {
		return func() error { return nil }
	}
	every := c.MetricsEvery
	if every <= 0 {
		every = time.Second
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	var werr error
	enc := json.NewEncoder(c.MetricsSink)
	wg.Go(func() {
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			if err := enc.Encode(r.scrape(ctx)); err != nil && werr == nil {
				werr = err
			}
			select {
			case <-t.C:
			case <-ctx.Done():
				return
			}
		}
	})
	return func() error { cancel(); wg.Wait(); return werr }
}

func (r *runner) scrape(ctx context.Context) (s Scrape) {
	s.TMS = r.now()
	defer func() { s.DurMS = math.Round((r.now()-s.TMS)*1e3) / 1e3 }()
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, r.cfg.MetricsURL, nil)
	if err != nil {
		s.Error = err.Error()
		return s
	}
	for k, v := range r.cfg.Header {
		req.Header[k] = v
	}
	resp, err := r.client.Do(req)
	if err != nil {
		s.Error = err.Error()
		return s
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		io.Copy(io.Discard, resp.Body)
		s.Error = "GET " + r.cfg.MetricsURL + ": " + resp.Status
		return s
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		s.Error = "not Prometheus text: " + err.Error()
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
			var ls []string
			for _, l := range m.GetLabel() {
				ls = append(ls, fmt.Sprintf("%s=%q", l.GetName(), l.GetValue()))
			}
			sort.Strings(ls)
			key := name
			if len(ls) > 0 {
				key += "{" + strings.Join(ls, ",") + "}"
			}
			s.Values[key] = v
		}
	}
	return s
}
