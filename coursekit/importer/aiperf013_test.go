package importer

import (
	"encoding/json"
	"math"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/lang"
	"github.com/llmperf-course/course/coursekit/metrics"
	"github.com/llmperf-course/course/coursekit/trace"
)

// The aiperf013_faults_* files are a real AIPerf 0.13.0 run (--export-level
// records, 40 Poisson requests at 15/s) against coursekit sim with 10 %
// 503, 5 % 429, 10 % reset and 15 % malformed SSE; only the artifact
// directory and the port were rewritten. aiperf013_faults_sim_faults.json
// is the simulator's /debug/truth: which request got which fault.
const (
	aiperfRecords = "aiperf013_faults_profile_export.jsonl"
	aiperfSummary = "aiperf013_faults_profile_export_aiperf.json"
)

// completeSuccesses returns, sorted, a per-attempt value over the
// complete successes of the trace.
func completeSuccesses(tr *trace.Trace, f func(a *trace.Attempt) (float64, bool)) []float64 {
	var x []float64
	for i := range tr.Attempts {
		if a := &tr.Attempts[i]; a.Outcome == trace.OK {
			if v, ok := f(a); ok {
				x = append(x, v)
			}
		}
	}
	slices.Sort(x)
	return x
}

func stddev(x []float64, ddof int) float64 {
	m := 0.0
	for _, v := range x {
		m += v
	}
	m /= float64(len(x))
	s := 0.0
	for _, v := range x {
		s += (v - m) * (v - m)
	}
	return math.Sqrt(s / float64(len(x)-ddof))
}

// AIPerf's summary std is the population std (ddof 0) of the same
// successes, not the sample std.
func TestAIPerf013SummaryStdIsPopulation(t *testing.T) {
	im := importWithSummary(t, "aiperf", aiperfRecords, aiperfSummary)
	for _, c := range []struct {
		metric string
		f      func(a *trace.Attempt) (float64, bool)
	}{{"ttft_ms", (*trace.Attempt).TTFT}, {"e2e_ms", (*trace.Attempt).E2E}} {
		x := completeSuccesses(im.tr, c.f)
		got := *im.stat(t, c.metric, "std").Value
		pop, sample := stddev(x, 0), stddev(x, 1)
		if math.Abs(got-pop) > 1e-3 || math.Abs(got-sample) < 1e-2 {
			t.Errorf("%s std %v: population %v, sample %v over %d successes", c.metric, got, pop, sample, len(x))
		}
	}
}

// AIPerf's inter_chunk_latency block is the card's per-event ITL: the
// same gaps, percentiles by numpy linear (the label says so, not t-digest).
func TestAIPerf013InterChunkIsPerEventITL(t *testing.T) {
	for _, withSummary := range []bool{true, false} {
		im := importFile(t, "aiperf", aiperfRecords, Options{})
		if withSummary {
			im = importWithSummary(t, "aiperf", aiperfRecords, aiperfSummary)
		}
		var gaps []float64
		for i := range im.tr.Attempts {
			if a := &im.tr.Attempts[i]; a.Outcome == trace.OK {
				gaps = a.EventIntervals(gaps)
			}
		}
		slices.Sort(gaps)
		if len(gaps) != 140 || im.card.ITL.N != 140 {
			t.Fatalf("%d per-event gaps, card ITL n=%d", len(gaps), im.card.ITL.N)
		}
		for _, l := range []struct {
			stat string
			q    float64
		}{{"p50", 0.50}, {"p90", 0.90}, {"p99", 0.99}} {
			want, _ := metrics.Quantile(gaps, l.q, metrics.Linear)
			got := im.stat(t, MetricInterChunk, l.stat)
			if math.Abs(*got.Value-want) > 1e-6 || got.Derived == withSummary {
				t.Errorf("summary %v: inter_chunk_latency %s = %v (derived %v), linear over the card's gaps %v", withSummary, l.stat, *got.Value, got.Derived, want)
			}
		}
		if pm := im.rep.PercentileMethod; strings.Contains(pm, "t-digest") || !strings.Contains(pm, "linear") {
			t.Errorf("percentile method %q", pm)
		}
	}
}

// The summary passed as FILE says to use --summary with the records.
func TestAIPerfSummaryAsRecordsFile(t *testing.T) {
	for _, f := range []string{aiperfSummary, "aiperf_profile_export_aiperf.json"} {
		raw, _ := os.ReadFile("testdata/" + f)
		_, err := Import("aiperf", strings.NewReader(string(raw)), f, new(strings.Builder))
		if err == nil || !strings.Contains(err.Error(), f+":1: this is AIPerf's summary") ||
			!strings.Contains(err.Error(), "--summary") || !strings.Contains(err.Error(), "profile_export.jsonl") || strings.Contains(err.Error(), "metadata: missing") {
			t.Errorf("%s as records: %v", f, err)
		}
	}
}

// AIPerf 0.13 records a stream with a malformed SSE message as a success;
// the import keeps AIPerf's verdict and says so in its notes.
func TestAIPerf013MalformedCountedAsSuccess(t *testing.T) {
	var faults map[string]string
	raw, _ := os.ReadFile("testdata/aiperf013_faults_sim_faults.json")
	if err := json.Unmarshal(raw, &faults); err != nil {
		t.Fatal(err)
	}
	im := importFile(t, "aiperf", aiperfRecords, Options{})
	seen := map[string]map[trace.Outcome]int{}
	for _, a := range im.tr.Attempts {
		f := faults[a.ID]
		if seen[f] == nil {
			seen[f] = map[trace.Outcome]int{}
		}
		seen[f][a.Outcome]++
	}
	if seen["malformed"][trace.OK] != 3 || len(seen["malformed"]) != 1 || seen["reset"][trace.OK] != 0 || seen["http_503"][trace.HTTPError] != 5 {
		t.Errorf("outcomes by injected fault: %v", seen)
	}
	ok := 0
	for _, m := range seen {
		ok += m[trace.OK]
	}
	if want, _ := AIPerfMalformedNote(ok); !slices.Contains(im.rep.Notes, want) {
		t.Errorf("notes lack the malformed-SSE note over %d ok attempts: %q", ok, im.rep.Notes)
	}
}

// The malformed-SSE note is there only when the file can hold such a
// stream (an ok attempt), and it says it cannot tell how many of them
// were: it names the ok attempts, not "such attempts are ok in this
// trace" as if there were some. A file whose records all failed has no
// such note.
func TestAIPerfMalformedNoteOnlyWhereTrue(t *testing.T) {
	im := importFile(t, "aiperf", "aiperf_profile_export.jsonl", Options{})
	var en, zh string
	for i, n := range im.rep.NotesIn(lang.EN) {
		if strings.Contains(n, "malformed SSE") {
			en, zh = n, im.rep.NotesIn(lang.ZH)[i]
		}
	}
	if !strings.Contains(en, "no telling how many of the 2 ok attempts in this trace") || strings.Contains(en, "such attempts are ok in this trace") {
		t.Errorf("the note over 2 ok attempts: %q", en)
	}
	if !strings.Contains(zh, "无法判断本 trace 的 2 次 ok 尝试里有几次") {
		t.Errorf("the zh note over 2 ok attempts: %q", zh)
	}
	if n, _ := AIPerfMalformedNote(1); !strings.Contains(n.In(lang.EN), "of the 1 ok attempt in") {
		t.Errorf("one ok attempt: %q", n.In(lang.EN))
	}
	raw, err := os.ReadFile("testdata/aiperf_profile_export.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var failed []string
	for _, l := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		if !strings.Contains(l, `"error": null`) || strings.Contains(l, `"warmup"`) {
			failed = append(failed, l)
		}
	}
	rep, err := ImportWith("aiperf", strings.NewReader(strings.Join(failed, "\n")), "failed.jsonl", new(strings.Builder), Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range rep.NotesIn(lang.EN) {
		if strings.Contains(n, "malformed SSE") {
			t.Errorf("a file without an ok attempt has the malformed-SSE note: %q", n)
		}
	}
	if _, ok := AIPerfMalformedNote(0); ok {
		t.Error("AIPerfMalformedNote(0) gives a note")
	}
}

// A pooled keep-alive connection the server had closed: AIPerf (aiohttp)
// records ServerDisconnectedError and no chunk. No response was received,
// so the attempt is no_response (not a stream that broke), its error keeps
// what AIPerf recorded, and the import's notes list it by AIPerf's words.
func TestAIPerfServerDisconnectedIsNoResponse(t *testing.T) {
	raw, err := os.ReadFile("testdata/" + aiperfRecords)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	id := ""
	for _, l := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		if i := strings.Index(l, `"error":{"code":503`); i >= 0 && id == "" {
			l = l[:i] + `"error":{"code":null,"type":"ServerDisconnectedError","message":"Server disconnected"}}`
			var rec struct {
				Metadata struct {
					ID string `json:"x_request_id"`
				} `json:"metadata"`
			}
			if err := json.Unmarshal([]byte(l), &rec); err != nil {
				t.Fatal(err)
			}
			id = rec.Metadata.ID
		}
		lines = append(lines, l)
	}
	if id == "" {
		t.Fatal("the fixture has no 503 record to rewrite")
	}
	const p = "keepalive.jsonl"
	var out strings.Builder
	rep, err := ImportWith("aiperf", strings.NewReader(strings.Join(lines, "\n")), p, &out, Options{})
	if err != nil {
		t.Fatal(err)
	}
	tr, err := trace.Read(strings.NewReader(out.String()), p)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range tr.Attempts {
		if a.ID == id && (a.Outcome != trace.NoResponse || a.Error != "ServerDisconnectedError: Server disconnected" || len(a.Events) != 0) {
			t.Errorf("the disconnected record: outcome %s, error %q, %d events; want no_response with AIPerf's type and message", a.Outcome, a.Error, len(a.Events))
		}
	}
	found := false
	for _, n := range rep.NotesIn(lang.EN) {
		if strings.HasPrefix(n, "AIPerf recorded an error on 12 records: ") && strings.Contains(n, `1 × ServerDisconnectedError "Server disconnected" → no_response (no response: `) &&
			strings.Contains(n, `4 × code 503 Service Unavailable`) {
			found = true
		}
	}
	if !found {
		t.Errorf("no note lists what AIPerf recorded: %q", rep.Notes)
	}
}

// An imported trace's window runs from the first send to the last end, so
// the attempt whose end defines the window's end ended within it: nothing
// in the AIPerf run ended after the window (walk 35f 3).
func TestAIPerf013NothingEndsAfterTheImportedWindow(t *testing.T) {
	im := importWithSummary(t, "aiperf", aiperfRecords, aiperfSummary)
	last := 0.0
	for _, a := range im.tr.Attempts {
		if a.HasEnd {
			last = max(last, a.EndMS)
		}
	}
	if last != im.tr.Header.Window.EndMS {
		t.Fatalf("last end %v, window end %v: the fixture no longer ends the window at an attempt's end", last, im.tr.Header.Window.EndMS)
	}
	s := metrics.Summarize(im.tr, metrics.Options{})
	if got := s.Throughput.EndedAfterWindow; got != (metrics.EndedCounts{}) {
		t.Errorf("ended after the window %+v, want none", got)
	}
	if got := s.Throughput.EndedWithinWindow.Attempts; got != s.Attempts-s.InFlight {
		t.Errorf("ended within the window %d of %d attempts (%d in flight)", got, s.Attempts, s.InFlight)
	}
}
