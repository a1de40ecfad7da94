package cardfmt_test

import (
	"encoding/json"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/cardfmt"
	"github.com/llmperf-course/course/coursekit/lang"
	"github.com/llmperf-course/course/coursekit/metrics"
	"github.com/llmperf-course/course/coursekit/textcheck"
	"github.com/llmperf-course/course/coursekit/trace"
)

func withTimings(id string, start float64, timings string) trace.Attempt {
	a := ok(id, start, trace.Pass)
	a.Meta = json.RawMessage(`{"server_timings":` + timings + `}`)
	return a
}

// The card shows the client/server split as distributions when attempts
// carry the server's timings, names bad ones, and stays silent otherwise.
func TestCardShowsServerSplit(t *testing.T) {
	tr := &trace.Trace{Header: trace.Header{Trace: trace.Version, Clock: "client", Window: trace.Window{StartMS: 0, EndMS: 10000}},
		Attempts: []trace.Attempt{
			withTimings("R1", 0, `{"prompt_n":19,"prompt_ms":90,"predicted_n":10,"predicted_ms":120,"cache_n":0}`),
			withTimings("R2", 1000, `{"prompt_n":1,"prompt_ms":15,"predicted_n":10,"predicted_ms":110,"cache_n":18}`),
			withTimings("R3<b>", 2000, `{"prompt_ms":"<i>"}`),
			ok("R4", 3000, trace.Pass),
		}}
	for _, f := range []cardfmt.Format{cardfmt.Text, cardfmt.Markdown} {
		c := card(t, tr, f)
		for _, want := range []string{
			"完整成功中 2 次可用，1 次没有，1 次有问题已忽略",
			"服务器 prompt_ms（预填充）（n=2，最近秩）：P50 15 ms",
			"客户端 TTFT − 服务器 prompt_ms（排队、HTTP 路径、网络）（n=2，最近秩）：P50 10 ms",
			"服务器每 token 解码时间 predicted_ms / (predicted_n − 1)（n=2，最近秩）：P50 12.222 ms", // 110 / 9
			"所以它含 predicted_n − 1 个解码步",
			"1 次尝试复用了缓存（cache_n > 0），共复用 18 个 token",
			"时间戳不能相减",
		} {
			if !strings.Contains(c, want) {
				t.Errorf("%s card lacks %q:\n%s", f, want, c)
			}
		}
		if f == cardfmt.Markdown && (strings.Contains(c, "<b>") || strings.Contains(c, "<i>")) {
			t.Errorf("markdown card does not escape trace strings:\n%s", c)
		}
		for _, p := range textcheck.Punctuation(c) {
			t.Errorf("%s card: half-width punctuation next to Chinese in %q", f, p)
		}
	}
	if c := card(t, tr, cardfmt.Text); !strings.Contains(c, `attempt R3<b>: server_timings.prompt_ms is "<i>", not a number ≥ 0`) {
		t.Errorf("the bad timing is not named:\n%s", c)
	}
	tr.Attempts = tr.Attempts[3:]
	if c := card(t, tr, cardfmt.Text); strings.Contains(c, "prompt_ms") || strings.Contains(c, "服务器自报") {
		t.Errorf("a card without server timings talks about them:\n%s", c)
	}
}

// Without server timings, cached tokens reported in usage (vLLM) still
// give the card a prompt-cache line.
func TestCardShowsUsageCachedTokens(t *testing.T) {
	a, b := ok("V1", 0, trace.Pass), ok("V2", 1000, trace.Pass)
	a.Meta, b.Meta = json.RawMessage(`{"cached_tokens":0}`), json.RawMessage(`{"cached_tokens":32}`)
	tr := &trace.Trace{Header: trace.Header{Trace: trace.Version, Clock: "client", Window: trace.Window{StartMS: 0, EndMS: 10000}},
		Attempts: []trace.Attempt{a, b, ok("V3", 2000, trace.Pass)}}
	for _, f := range []cardfmt.Format{cardfmt.Text, cardfmt.Markdown} {
		c := card(t, tr, f)
		if !strings.Contains(c, "报告了的 2 次完整成功中，1 次复用了缓存，共复用 32 个 prompt token") || strings.Contains(c, "服务器自报") {
			t.Errorf("%s card:\n%s", f, c)
		}
		for _, p := range textcheck.Punctuation(c) {
			t.Errorf("%s card: half-width punctuation next to Chinese in %q", f, p)
		}
	}
}

// The server's decode time per token sits on the line after the client's
// TPOT and its intervals, the per-attempt figure its definition names, not
// after the event gaps' percentiles; on a recorded llama.cpp run the two
// agree, in text and Markdown and in both languages.
func TestDecodeBesideClientTPOT(t *testing.T) {
	tr, err := trace.ReadFile("../metrics/testdata/llamacpp-chat-24-tokens.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range []lang.Lang{lang.ZH, lang.EN} {
		for _, f := range []cardfmt.Format{cardfmt.Text, cardfmt.Markdown} {
			lines := strings.Split(cardIn(t, tr, f, l), "\n")
			i := slices.IndexFunc(lines, func(s string) bool {
				return strings.Contains(s, "predicted_ms / (predicted_n − 1)") && !strings.Contains(s, "口径") && !strings.Contains(s, "Definition")
			})
			if i < 2 || !strings.Contains(lines[i-2], "TPOT = (t_N − t_1) / (N − 1)") || !strings.Contains(lines[i-1], "ms/token") || !strings.Contains(lines[i-1], "95%") {
				t.Fatalf("%s %s card: the decode line is not after the client TPOT and its intervals:\n%s", l, f, strings.Join(lines, "\n"))
			}
			if !strings.Contains(lines[i+1], "TPOT") {
				t.Errorf("%s %s: the definition does not name the client TPOT: %s", l, f, lines[i+1])
			}
		}
	}
	s := metrics.Summarize(tr, metrics.Options{})
	if c, d := *s.TPOT.P50, *s.Server.DecodePerTokenMS.P50; math.Abs(c-d) > 0.01*d {
		t.Errorf("client TPOT P50 %.3f ms, server decode P50 %.3f ms: want them within 1 %%", c, d)
	}
}
