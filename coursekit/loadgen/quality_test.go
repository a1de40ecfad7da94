package loadgen_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/llmperf-course/course/coursekit/dataset"
	"github.com/llmperf-course/course/coursekit/loadgen"
	"github.com/llmperf-course/course/coursekit/metrics"
	"github.com/llmperf-course/course/coursekit/sim"
	"github.com/llmperf-course/course/coursekit/trace"
)

type attemptMeta struct {
	Prompt string `json:"prompt"`
	Judge  *struct {
		Name, Reason string
	} `json:"judge"`
}

func metaOf(t *testing.T, a *trace.Attempt) attemptMeta {
	t.Helper()
	var m attemptMeta
	if err := json.Unmarshal(a.Meta, &m); err != nil {
		t.Fatalf("%s: meta %s: %v", a.ID, a.Meta, err)
	}
	return m
}

// Against a simulator that answers a fifth of the arith questions wrong,
// every complete answer is judged during the run, each verdict agrees with
// the server's own record of what it answered, and the card's quality
// pass rate is about 0.8 with no unrated success.
func TestArithJudgedDuringTheRun(t *testing.T) {
	t.Parallel()
	cfg := fast
	cfg.WrongAnswerRate, cfg.Seed = 0.2, 11
	s, url := startSim(t, cfg)
	for _, api := range []string{"completions", "chat"} {
		s.ClearTruth()
		var last loadgen.Progress
		_, tr, _ := run(t, context.Background(), loadgen.Config{URL: url, API: api, Rate: 150, Arrival: loadgen.Constant, Duration: 2 * time.Second,
			Timeout: 10 * time.Second, Dataset: dataset.Arith(1, dataset.ArithSize), Seed: 1,
			Progress: func(p loadgen.Progress) { last = p }, ProgressEvery: time.Hour})
		truth := map[string]sim.Truth{}
		for _, x := range s.Truths() {
			truth[x.ID] = x
		}
		items := dataset.Arith(1, dataset.ArithSize).Items
		rated := 0
		for i := range tr.Attempts {
			a := &tr.Attempts[i]
			m := metaOf(t, a)
			n := 0
			fmt.Sscanf(a.Request, "q%d", &n)
			if m.Prompt != items[n%len(items)].Ref {
				t.Fatalf("%s sent %q, want item %s", a.ID, m.Prompt, items[n%len(items)].Ref)
			}
			if a.Outcome != trace.OK {
				if a.Quality != trace.Unrated || m.Judge != nil {
					t.Errorf("%s (%s) was judged", a.ID, a.Outcome)
				}
				continue
			}
			rated++
			tt, ok := truth[a.ID]
			if !ok || tt.Answer == "" {
				t.Fatalf("%s: no server answer in the truth log", a.ID)
			}
			if (a.Quality == trace.Pass) == tt.WrongOnPurpose || a.Quality == trace.Unrated {
				t.Errorf("%s: quality %s, but the server answered %q (wrong on purpose: %v)", a.ID, a.Quality, tt.Answer, tt.WrongOnPurpose)
			}
			if m.Judge == nil || m.Judge.Name != "exact" || !strings.Contains(m.Judge.Reason, `"`+tt.Answer+`"`) {
				t.Errorf("%s: meta.judge %+v for answer %q", a.ID, m.Judge, tt.Answer)
			}
		}
		c := metrics.Summarize(tr, metrics.Options{})
		pr := c.QualityPassRate.Value
		t.Logf("%s: %d attempts, %d ok, pass rate %v, unrated %d", api, c.Attempts, c.CompleteSuccess, *pr, c.UnratedSuccesses)
		if rated < 200 || c.UnratedSuccesses != 0 || pr == nil || *pr < 0.7 || *pr > 0.9 || c.Conditions[0].Qualified == 0 {
			t.Errorf("%s: %d rated, %d unrated, pass rate %v, qualified %d", api, rated, c.UnratedSuccesses, pr, c.Conditions[0].Qualified)
		}
		passes := 0
		for _, a := range tr.Attempts { // the live view counts every attempt, in the window or not
			if a.Quality == trace.Pass {
				passes++
			}
		}
		if last.Phase != "done" || last.Rated != int64(rated) || last.Passes != int64(passes) || !strings.Contains(last.String(), "quality pass") {
			t.Errorf("last progress %+v; the trace has %d passes of %d rated", last, passes, rated)
		}
		var cond struct {
			Judges  []string
			Dataset struct {
				Name  string
				Items int
			}
			Quality string
		}
		json.Unmarshal(tr.Header.Conditions, &cond)
		if strings.Join(cond.Judges, ",") != "exact" || cond.Dataset.Name != "arith" || cond.Dataset.Items != dataset.ArithSize || !strings.Contains(cond.Quality, "off the stamping path") {
			t.Errorf("header conditions %s", tr.Header.Conditions)
		}
	}
}

// jsonServer streams a chat answer in pieces whose JSON needs escapes, the
// way a model writes JSON, to test text collection end to end.
func jsonServer(t *testing.T) string {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Messages []struct{ Content string } `json:"messages"`
		}
		json.NewDecoder(r.Body).Decode(&req)
		answer := `{"name": "Zoë \"Z\"", "age": 7}`
		if strings.Contains(req.Messages[0].Content, "bad") {
			answer = `{"name": "Zoë", "age": "seven"}`
		}
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, `data: {"choices":[{"index":0,"delta":{"role":"assistant"},"finish_reason":null}]}`+"\n\n")
		for i := 0; i < len(answer); i += 5 {
			piece, _ := json.Marshal(answer[i:min(i+5, len(answer))])
			fmt.Fprintf(w, `data: {"choices":[{"index":0,"delta":{"content":%s},"finish_reason":null}]}`+"\n\n", piece)
			w.(http.Flusher).Flush()
		}
		fmt.Fprint(w, `data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`+"\n\ndata: [DONE]\n\n")
	}))
	t.Cleanup(ts.Close)
	return ts.URL
}

// A JSONL dataset with a schema, a regex and an unrated prompt, over chat
// with escaped text, in a closed loop.
func TestFileDatasetJudged(t *testing.T) {
	src := `{"prompt":"a person, good","expect":{"json_schema":{"type":"object","required":["name","age"],"properties":{"age":{"type":"integer"}}}}}
{"prompt":"a person, bad","expect":{"json_schema":{"type":"object","properties":{"age":{"type":"integer"}}}}}
{"prompt":"quoted name","expect":{"regex":"Zo\u00eb \\\\\"Z\\\\\""}}
{"prompt":"anything"}
`
	set, err := dataset.Read(strings.NewReader(src), "people.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	_, tr, _ := run(t, context.Background(), loadgen.Config{URL: jsonServer(t), API: "chat", Model: "m", Concurrency: 2, Duration: 300 * time.Millisecond, Dataset: set})
	want := map[string]trace.Quality{"people.jsonl:1": trace.Pass, "people.jsonl:2": trace.Fail, "people.jsonl:3": trace.Pass, "people.jsonl:4": trace.Unrated}
	seen := map[string]int{}
	for i := range tr.Attempts {
		a := &tr.Attempts[i]
		m := metaOf(t, a)
		seen[m.Prompt]++
		if a.Outcome != trace.OK || a.Quality != want[m.Prompt] {
			t.Errorf("%s (%s): %s quality %s, want %s; meta %s", a.ID, m.Prompt, a.Outcome, a.Quality, want[m.Prompt], a.Meta)
		}
		if (m.Judge != nil) != (want[m.Prompt] != trace.Unrated) {
			t.Errorf("%s: meta %s", a.ID, a.Meta)
		}
	}
	if len(seen) != 4 {
		t.Errorf("items sent: %v", seen)
	}
	if m := metaOf(t, &tr.Attempts[0]); m.Judge != nil && m.Prompt == "people.jsonl:2" && !strings.Contains(m.Judge.Reason, "at /age") {
		t.Errorf("schema reason %q", m.Judge.Reason)
	}
}

// Without a dataset nothing is judged, and the header says why goodput
// will be 0.
func TestNoDatasetStaysUnrated(t *testing.T) {
	_, url := startSim(t, fast)
	_, tr, _ := run(t, context.Background(), loadgen.Config{URL: url, Rate: 50, Duration: 200 * time.Millisecond})
	for _, a := range tr.Attempts {
		if a.Quality != trace.Unrated || strings.Contains(string(a.Meta), "judge") {
			t.Errorf("%s judged: %s", a.ID, a.Meta)
		}
	}
	var cond struct{ Quality string }
	json.Unmarshal(tr.Header.Conditions, &cond)
	if !strings.Contains(cond.Quality, "not judged") || !strings.Contains(cond.Quality, "--dataset") {
		t.Errorf("conditions.quality %q", cond.Quality)
	}
}
