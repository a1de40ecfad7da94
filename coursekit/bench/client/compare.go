package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/llmperf-course/course/coursekit/metrics"
	"github.com/llmperf-course/course/coursekit/trace"
)

// Sample is one request as a client recorded it.
type Sample struct {
	// ID is the key shared with the server's truth log: the X-Request-Id
	// header the client sent.
	ID string
	// StartMS is when the client sent it, on the client's own clock (any
	// origin: only differences between samples are used).
	StartMS float64
	// TTFTMS is the client's time to first token; OK is false when the
	// request failed or had no first token.
	TTFTMS float64
	OK     bool
}

// ServerTTFT is the server's own time to first token for one request:
// first token event written − request received, on the server's clock.
type ServerTTFT struct {
	TTFTMS float64
	OK     bool
}

// Row is one line of the comparison table: one client at one rate.
type Row struct {
	Client    string  `json:"client"`
	Rate      float64 `json:"rate"`      // target, requests/s
	Expected  int     `json:"expected"`  // requests the schedule plans
	N         int     `json:"n"`         // requests the client recorded
	Matched   int     `json:"matched"`   // of those, found ok in the server's log with a first token
	Failed    int     `json:"failed"`    // client records that are not ok
	Unmatched int     `json:"unmatched"` // ok client records with no ok server record
	Extra     int     `json:"extra"`     // server records the client did not record
	ErrP50    float64 `json:"err_p50_ms"`
	ErrP99    float64 `json:"err_p99_ms"`
	ErrMin    float64 `json:"err_min_ms"`
	ErrMax    float64 `json:"err_max_ms"`
	LagP99    float64 `json:"lag_p99_ms"`
	Achieved  float64 `json:"achieved_rate"`
	OK        bool    `json:"sustainable"`
	Why       string  `json:"why,omitempty"` // the first rule broken, when not sustainable
	// Keeps is the capacity half of the rule alone: every request sent,
	// served and matched, at the rate, on schedule, whatever the error.
	Keeps bool `json:"keeps_rate"`
}

// The sustainable rule, as README states it.
const (
	MaxErrP99     = 1.0  // ms: client-added TTFT error p99 strictly below this
	MaxLagP99     = 10.0 // ms: send lag p99 strictly below this
	MinAchieved   = 0.95 // achieved rate at least this fraction of the target
	MinSentFactor = 0.99 // at least this fraction of the planned requests recorded
)

// Compare matches a client's samples to the server's truth by ID and
// applies the sustainable rule.
//
// Error is client TTFT − server TTFT per matched request. Each TTFT is a
// difference on one clock, so the two clocks need no synchronisation.
//
// Lag is measured the same way for every client, from its own send times
// alone: with the sends sorted, lag_i = (start_i − start_0) − i/rate, the
// delay behind an ideal constant schedule anchored at the first send.
// Achieved rate is (n − 1) / (start_last − start_0).
func Compare(client string, rate float64, expected int, samples []Sample, truth map[string]ServerTTFT) Row {
	r := Row{Client: client, Rate: rate, Expected: expected, N: len(samples)}
	seen := make(map[string]bool, len(samples))
	var errs, starts []float64
	for _, s := range samples {
		starts = append(starts, s.StartMS)
		seen[s.ID] = true
		if !s.OK {
			r.Failed++
			continue
		}
		t, ok := truth[s.ID]
		if !ok || !t.OK {
			r.Unmatched++
			continue
		}
		r.Matched++
		errs = append(errs, s.TTFTMS-t.TTFTMS)
	}
	for id := range truth {
		if !seen[id] {
			r.Extra++
		}
	}
	slices.Sort(errs)
	if n := len(errs); n > 0 {
		r.ErrP50, r.ErrP99 = errs[metrics.NearestRankIndex(n, 0.50)], errs[metrics.NearestRankIndex(n, 0.99)]
		r.ErrMin, r.ErrMax = errs[0], errs[n-1]
	}
	slices.Sort(starts)
	if n := len(starts); n > 1 {
		lags := make([]float64, n)
		for i, s := range starts {
			lags[i] = (s - starts[0]) - float64(i)*1000/rate
		}
		slices.Sort(lags)
		r.LagP99 = lags[metrics.NearestRankIndex(n, 0.99)]
		if span := starts[n-1] - starts[0]; span > 0 {
			r.Achieved = float64(n-1) * 1000 / span
		}
	}
	r.OK, r.Why = sustainable(r)
	r.Keeps = r.OK || strings.HasPrefix(r.Why, "error p99")
	return r
}

// sustainable applies the rule in order; the error bound comes last, so
// a row that fails only on it still keeps the rate (capacity).
func sustainable(r Row) (bool, string) {
	switch {
	case r.N == 0 || r.Matched == 0:
		return false, "no matched requests"
	case float64(r.N) < MinSentFactor*float64(r.Expected):
		return false, fmt.Sprintf("recorded %d of %d planned", r.N, r.Expected)
	case r.Failed > 0:
		return false, fmt.Sprintf("%d failed", r.Failed)
	case r.Unmatched > 0 || r.Extra > 0:
		return false, fmt.Sprintf("%d unmatched, %d only on the server", r.Unmatched, r.Extra)
	case r.Achieved < MinAchieved*r.Rate:
		return false, fmt.Sprintf("achieved %.0f/s", r.Achieved)
	case r.LagP99 >= MaxLagP99:
		return false, fmt.Sprintf("lag p99 %.1f ms", r.LagP99)
	case r.ErrP99 >= MaxErrP99:
		return false, fmt.Sprintf("error p99 %.2f ms", r.ErrP99)
	}
	return true, ""
}

// ReadTruth reads GET /debug/truth of `coursekit sim`: per request id, the
// server TTFT (first event − received).
func ReadTruth(r io.Reader) (map[string]ServerTTFT, error) {
	var doc struct {
		Requests []struct {
			ID         string  `json:"id"`
			ReceivedMS float64 `json:"received_ms"`
			Outcome    string  `json:"outcome"`
			Events     []struct {
				MS float64 `json:"ms"`
			} `json:"events"`
		} `json:"requests"`
	}
	if err := json.NewDecoder(r).Decode(&doc); err != nil {
		return nil, fmt.Errorf("truth: %w", err)
	}
	m := make(map[string]ServerTTFT, len(doc.Requests))
	for _, q := range doc.Requests {
		t := ServerTTFT{OK: q.Outcome == "ok" && len(q.Events) > 0}
		if len(q.Events) > 0 {
			t.TTFTMS = q.Events[0].MS - q.ReceivedMS
		}
		m[q.ID] = t
	}
	return m, nil
}

// ReadGo reads a `coursekit bench` trace: the attempt id is the
// X-Request-Id it sent.
func ReadGo(path string) ([]Sample, error) {
	tr, err := trace.ReadFile(path)
	if err != nil {
		return nil, err
	}
	out := make([]Sample, 0, len(tr.Attempts))
	for _, a := range tr.Attempts {
		s := Sample{ID: a.ID, StartMS: a.StartMS}
		if t, ok := a.TTFT(); ok && a.Outcome == trace.OK {
			s.TTFTMS, s.OK = t, true
		}
		out = append(out, s)
	}
	return out, nil
}

// ReadAIPerf reads AIPerf's profile_export.jsonl (one record per request,
// failures included). AIPerf sends its x_request_id as the X-Request-ID
// header; its TTFT is in metrics.time_to_first_token (or "ttft" in newer
// layouts), in ms; request_start_ns is its send time. Records of other
// phases than profiling (warm-up) are skipped.
func ReadAIPerf(r io.Reader) ([]Sample, error) {
	type metric struct {
		Value json.RawMessage `json:"value"`
		Unit  string          `json:"unit"`
	}
	var out []Sample
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	line := 0
	for sc.Scan() {
		line++
		b := sc.Bytes()
		if len(strings.TrimSpace(string(b))) == 0 {
			continue
		}
		var rec struct {
			Metadata struct {
				XRequestID     string `json:"x_request_id"`
				RequestStartNS int64  `json:"request_start_ns"`
				Phase          string `json:"benchmark_phase"`
				WasCancelled   bool   `json:"was_cancelled"`
			} `json:"metadata"`
			Metrics map[string]metric `json:"metrics"`
			Error   json.RawMessage   `json:"error"`
		}
		if err := json.Unmarshal(b, &rec); err != nil {
			return nil, fmt.Errorf("aiperf record %d: %w", line, err)
		}
		if p := rec.Metadata.Phase; p != "" && p != "profiling" {
			continue
		}
		s := Sample{ID: rec.Metadata.XRequestID, StartMS: float64(rec.Metadata.RequestStartNS) / 1e6}
		m, ok := rec.Metrics["time_to_first_token"]
		if !ok {
			m, ok = rec.Metrics["ttft"]
		}
		var v float64
		if ok && json.Unmarshal(m.Value, &v) == nil && (len(rec.Error) == 0 || string(rec.Error) == "null") && !rec.Metadata.WasCancelled {
			switch m.Unit {
			case "ms", "":
			case "ns":
				v /= 1e6
			case "us":
				v /= 1e3
			case "s", "sec":
				v *= 1e3
			default:
				return nil, fmt.Errorf("aiperf record %d: TTFT unit %q", line, m.Unit)
			}
			s.TTFTMS, s.OK = v, true
		}
		out = append(out, s)
	}
	return out, sc.Err()
}

func readTruthFile(path string) (map[string]ServerTTFT, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadTruth(f)
}
