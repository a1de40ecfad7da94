package cardopts_test

import (
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/cardopts"
	"github.com/llmperf-course/course/coursekit/metrics"
	"github.com/llmperf-course/course/coursekit/trace"
)

func header(t *testing.T, conditions string) *trace.Header {
	t.Helper()
	tr, err := trace.Read(strings.NewReader(`{"trace":"llm-serving/v1","clock":"client","window":{"start_ms":0,"end_ms":1000},"window_cost":2,"currency":"CNY","conditions":`+conditions+"}\n"), "t.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	return &tr.Header
}

func parse(t *testing.T, args ...string) cardopts.Flags {
	t.Helper()
	var f cardopts.Flags
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	f.RegisterSLOs(fs, "ttft")
	f.RegisterReading(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	return f
}

// The rule of the package doc: a flag wins; what the trace recorded is the
// default; then the unit's defaults.
func TestOptionsFromFlagsAndRecordedConditions(t *testing.T) {
	recorded := `{"slo":{"slo_ttft_ms":[2000,800],"slo_e2e_ms":5000},"percentiles":[0.5,0.999],"dataset":{"name":"arith"}}`
	cost := 7.0
	for _, c := range []struct {
		name       string
		args       []string
		conditions string
		want       metrics.Options
	}{
		{"nothing given or recorded", nil, `{}`,
			metrics.Options{SLOsMS: []float64{1000}, Method: metrics.NearestRank, WindowCost: ptr(2)}},
		{"recorded", nil, recorded,
			metrics.Options{SLOsMS: []float64{2000, 800}, Latency: metrics.LatencySLO{E2EMS: 5000}, Method: metrics.NearestRank, Levels: []float64{0.5, 0.999}, WindowCost: ptr(2), Judged: true}},
		{"a TTFT flag replaces the recorded SLO set", []string{"--slo-ttft", "1s"}, recorded,
			metrics.Options{SLOsMS: []float64{1000}, Method: metrics.NearestRank, Levels: []float64{0.5, 0.999}, WindowCost: ptr(2), Judged: true}},
		{"a latency flag alone takes TTFT 1 s", []string{"--slo-e2e", "3s"}, recorded,
			metrics.Options{SLOsMS: []float64{1000}, Latency: metrics.LatencySLO{E2EMS: 3000}, Method: metrics.NearestRank, Levels: []float64{0.5, 0.999}, WindowCost: ptr(2), Judged: true}},
		{"reading flags", []string{"--percentile", "linear", "--percentiles", "90,99", "--window-cost", "7", "--memory", "1MiB"}, recorded,
			metrics.Options{SLOsMS: []float64{2000, 800}, Latency: metrics.LatencySLO{E2EMS: 5000}, Method: metrics.Linear, Levels: []float64{0.9, 0.99}, WindowCost: &cost, Judged: true, MemoryBytes: 1 << 20}},
	} {
		f := parse(t, c.args...)
		got, err := f.Options(header(t, c.conditions))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s:\n got %+v\nwant %+v", c.name, got, c.want)
		}
	}
}

func ptr(v float64) *float64 { return &v }

// A recorded condition that cannot be read stops the summary with the
// file and line of the header, from a file and in memory alike (metrics
// alone used to keep the caller's options silently in memory).
func TestUnreadableRecordedConditionIsLocated(t *testing.T) {
	for _, cond := range []string{`{"slo":{"slo_ttft":1}}`, `{"percentiles":[50]}`} {
		text := `{"trace":"llm-serving/v1","clock":"client","window":{"start_ms":0,"end_ms":1000},"conditions":` + cond + "}\n"
		path := filepath.Join(t.TempDir(), "bad.jsonl")
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := cardopts.SummarizeFile(path, cardopts.Flags{})
		if err == nil || !strings.Contains(err.Error(), path+":1") || !trace.IsBadInput(err) {
			t.Errorf("%s from a file: %v", cond, err)
		}
		// In memory the reader itself refuses the header (trace's
		// ReadConditions); if it ever reads it, the summary must refuse.
		tr, err := trace.Read(strings.NewReader(text), "bad.jsonl")
		if err == nil {
			_, err = cardopts.Summarize(tr, cardopts.Flags{})
		}
		if err == nil || !strings.Contains(err.Error(), "conditions.") {
			t.Errorf("%s in memory: %v", cond, err)
		}
	}
}

// The unit's flags read nothing the trace recorded but the judge.
func TestUnitFlagsIgnoreRecordedSLOs(t *testing.T) {
	f := cardopts.Unit("")
	o, err := f.Options(header(t, `{"slo":{"slo_ttft_ms":[2000],"slo_e2e_ms":5000},"percentiles":[0.9]}`))
	if err != nil || !reflect.DeepEqual(o.SLOsMS, []float64{1000, 500}) || o.Latency.Set() {
		t.Errorf("unit options %+v, %v", o, err)
	}
}

// The SLO set a bench run records is what the card reads back.
func TestSLOSetRoundTrip(t *testing.T) {
	f := parse(t, "--slo-ttft", "2s", "--slo-ttft", "800ms", "--slo-tpot", "40ms")
	set := f.SLOSet()
	if !reflect.DeepEqual(set, metrics.SLOSet{TTFTMS: []float64{2000, 800}, LatencySLO: metrics.LatencySLO{TPOTMS: 40}}) {
		t.Errorf("SLO set %+v", set)
	}
	var none cardopts.Flags
	if got := none.SLOSet(); !reflect.DeepEqual(got.TTFTMS, []float64{1000}) {
		t.Errorf("no flags: %+v", got)
	}
}

// Bad flag values are refused by the flag package, with the reason.
func TestBadFlagValues(t *testing.T) {
	for _, args := range [][]string{{"--slo-ttft", "0s"}, {"--slo-e2e", "fast"}, {"--percentile", "average"}, {"--percentiles", "100"}, {"--window-cost", "-1"}, {"--memory", "lots"}} {
		var f cardopts.Flags
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		fs.SetOutput(new(strings.Builder))
		f.RegisterSLOs(fs, "ttft")
		f.RegisterReading(fs)
		if err := fs.Parse(args); err == nil {
			t.Errorf("%v accepted", args)
		}
	}
}
