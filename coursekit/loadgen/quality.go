package loadgen

import (
	"encoding/json"
	"fmt"
	"runtime"
	"strconv"
	"sync"
	"unicode/utf8"

	"github.com/llmperf-course/course/coursekit/dataset"
	"github.com/llmperf-course/course/coursekit/trace"
)

// Quality during the run. With a dataset whose items carry expectations,
// the client keeps each attempt's generated text (decoded from the span the
// chunk scanner finds, after the event is stamped) and hands the finished
// attempt to a judging goroutine, which rates it before it is written. So
// judging never runs while a stream is being stamped, never delays the
// next send of an open loop or the next request of a closed-loop user, and
// a run without a dataset (the client-accuracy benchmark) has no text
// collection and no judging stage at all.

// finished is an attempt on its way to the judges.
type finished struct {
	a    *trace.Attempt
	text *answer
	item int
}

// answer is an attempt's generated text, kept for its judge. capped says
// it outgrew MaxAnswerBytes: the text is then incomplete and not judged.
type answer struct {
	b      []byte
	capped bool
}

// texts recycles the per-attempt text buffers.
var texts = sync.Pool{New: func() any { return &answer{b: make([]byte, 0, 512)} }}

// bodies prebuilds one request body per dataset item: a send is then a
// reader over shared bytes, as without a dataset.
func (r *runner) datasetBodies() {
	c := r.cfg
	r.bodies = make([][]byte, len(c.Dataset.Items))
	for i, it := range c.Dataset.Items {
		m := map[string]any{"model": c.Model, "max_tokens": c.MaxTokens, "stream": true, "stream_options": r.streamOptions()}
		if c.IgnoreEOS {
			m["ignore_eos"] = true
		}
		if r.chat {
			m["messages"] = []map[string]string{{"role": "user", "content": it.Prompt}}
		} else {
			m["prompt"] = it.Prompt
		}
		r.bodies[i], _ = json.Marshal(m)
	}
	r.judging = c.Dataset.Rated() > 0
}

// emit passes a finished attempt on: to the judges when the run judges
// answers, else straight to the writer.
func (r *runner) emit(a *trace.Attempt, text *answer, item int) {
	if r.judging {
		r.toJudge <- finished{a, text, item}
		return
	}
	r.out <- a
}

// startJudges runs one judging goroutine per core; the returned func
// waits for them after the last attempt has been emitted.
func (r *runner) startJudges() func() {
	if !r.judging {
		return func() {}
	}
	r.toJudge = make(chan finished, 1024)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for f := range r.toJudge {
				r.judge(f)
				r.out <- f.a
			}
		})
	}
	return func() { close(r.toJudge); wg.Wait() }
}

// judge rates a complete success of an item with an expectation: quality
// pass or fail, with the judge's name and reason under meta.judge. Any
// other attempt, and items without an expectation, stay unrated.
func (r *runner) judge(f finished) {
	defer func() {
		f.text.b, f.text.capped = f.text.b[:0], false
		texts.Put(f.text)
	}()
	j := r.cfg.Dataset.Items[f.item].Judge
	if f.a.Outcome != trace.OK || j == nil {
		return
	}
	if f.text.capped {
		// Judged on a part, a long answer could pass a regex or contains
		// judge that the whole would fail: left unrated, and said so.
		m := f.a.Meta[:len(f.a.Meta)-1]
		m = append(m, fmt.Sprintf(`,"judge_skipped":"the answer is longer than %d bytes (1 MiB): not judged"`, MaxAnswerBytes)...)
		f.a.Meta = append(m, '}')
		return
	}
	v := j.Judge(string(f.text.b))
	f.a.Quality = trace.Fail
	if v.Pass {
		f.a.Quality = trace.Pass
		r.passes.Add(1)
	}
	r.rated.Add(1)
	verdict, _ := json.Marshal(struct {
		Name   string `json:"name"`
		Reason string `json:"reason"`
	}{j.Name(), v.Reason})
	m := f.a.Meta[:len(f.a.Meta)-1] // drop the closing brace
	m = append(m, `,"judge":`...)
	m = append(m, verdict...)
	f.a.Meta = append(appendAnswer(m, f.text.b), '}')
}

// maxAnswer bounds meta.answer, so that long answers cannot swell a trace.
const maxAnswer = 2000

// appendAnswer adds the judged answer text as ,"answer":"…", cut to at
// most maxAnswer bytes on a UTF-8 boundary, with "answer_truncated":true
// when cut, so that a reader can check the verdict against the answer.
func appendAnswer(m, text []byte) []byte {
	cut := len(text) > maxAnswer
	if cut {
		n := maxAnswer
		for n > 0 && !utf8.RuneStart(text[n]) {
			n--
		}
		text = text[:n]
	}
	b, _ := json.Marshal(string(text))
	m = append(m, `,"answer":`...)
	m = append(m, b...)
	if cut {
		m = append(m, `,"answer_truncated":true`...)
	}
	return m
}

// appendPromptRef adds the dataset item an attempt sent to its meta.
func (r *runner) appendPromptRef(meta []byte, item int) []byte {
	if r.cfg.Dataset == nil {
		return meta
	}
	meta = append(meta, `,"prompt":`...)
	return strconv.AppendQuote(meta, r.cfg.Dataset.Items[item].Ref)
}

// datasetConditions describes the prompts and the judging in the header:
// it names the judges, so that a reader knows what "quality pass" meant.
func datasetConditions(m map[string]any, set *dataset.Set) {
	if set == nil {
		m["quality"] = "not judged: generated prompts have no expectation, so every answer is unrated (null, never a pass): with a TTFT SLO alone qualified rate and goodput are unknown (unrated), not 0; with latency SLOs beyond TTFT (--slo-e2e, --slo-itl-p95, --slo-tpot) the card qualifies on latency alone and says so (not judged: latency only); run with --dataset arith or --dataset FILE.jsonl to judge answers"
		return
	}
	delete(m, "prompt_tokens")
	m["prefix_reuse"] = map[string]any{"mode": "dataset", "salted": false,
		"shared": "the prompts are sent as written (a salt could change a judged question): whatever the items share, and a repeated item, a later request of the run or a second run of the same dataset can be served from the server's prompt cache"}
	m["prompt"] = fmt.Sprintf("dataset %s: business request n sends item n mod %d, in order; a retry resends its request's item; meta.prompt names the item", set.Name, len(set.Items))
	m["dataset"] = set.Conditions()
	m["judges"] = set.JudgeNames()
	m["quality"] = fmt.Sprintf("judged by the client after each attempt ended, off the stamping path: a complete success of an item with an expectation (%d of %d items) is pass or fail, with meta.judge {name, reason}; failed and in-flight attempts, and items without an expectation, are null (unrated)", set.Rated(), len(set.Items))
}
