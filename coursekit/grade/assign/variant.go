package assign

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"

	"github.com/llmperf-course/course/coursekit/grade/secret"
	"github.com/llmperf-course/course/coursekit/trace"
)

// Unit is the unit whose deliverable this package grades.
const Unit = "unit01"

// VariantTraceName is the file name of a learner's variant next to their
// notebook; the notebook's locked cells read it by this relative path.
const VariantTraceName = "trace.jsonl"

// variantTimeoutMS is the variants' client timeout to the first token.
const variantTimeoutMS = 2500

// Variant is the learner's own version of the unit's 10-attempt teaching
// trace, as the bytes of a trace file. It keeps the teaching structure of
// data/unit01/trace.jsonl: eight complete successes, one of them a quality
// failure under the SLO, one latency miss just above 1 s, one success with a
// TTFT of exactly 0.5 s (so ≤ versus < matters), a timeout before the first
// token and a connection failure; all results are in before the fixed window
// closes. What changes is every value: the window length (never the public
// 10 s), the window cost, how many successes fall under 0.5 s and between
// 0.5 s and 1 s, whether a second slow success exists, every TTFT, the
// order of the attempts and their streams. So the card's numbers differ
// between learners, and a copied card fails.
//
// The seed is HMAC-SHA256(key, learner id): without the key nobody can
// compute another learner's variant, and with it the grader regenerates
// any variant. Same key and id, same bytes.
//
// Its conditions are Chinese, as `coursekit gen` writes them: the learner
// reads them in their own trace.
func Variant(key []byte, learnerID string) ([]byte, error) {
	return variant(key, learnerID, conditionsZH, Unit+"/v2")
}

// LegacyVariant is the variant as releases before the Chinese conditions
// wrote it: the same attempts under an English header. A learner's
// self-check records the sha256 of the trace it read, so a class released
// then is graded against these bytes.
func LegacyVariant(key []byte, learnerID string) ([]byte, error) {
	return variant(key, learnerID, conditionsEN, Unit+"/v1")
}

// conditionsZH are the variants' conditions, in Chinese.
var conditionsZH = map[string]string{
	"source":            "为第 01 单元给每位学员单独生成的教学数据，不代表任何引擎的性能",
	"observation_point": "客户端，同一个单调时钟",
	"model":             "教学示例（没有真实模型）",
	"input_tokens":      "每次 128 个 token",
	"output_tokens":     "3–6 个 token",
	"arrival":           "开环，10 次尝试按固定时刻发出",
	"timeout_policy":    fmt.Sprintf("等待首个 token 超过 %d ms 即放弃（超时）", variantTimeoutMS),
	"retries":           "无",
	"warmup":            "无（全部尝试都计入）",
	"prefix_reuse":      "无",
	"quality_rubric":    "预先约定的评分量表，对每个完整成功逐个评分",
}

// conditionsEN are the conditions releases before conditionsZH wrote.
var conditionsEN = map[string]string{
	"source":            "per-learner teaching variant of unit 01; not the performance of any engine",
	"observation_point": "client, one monotonic clock",
	"model":             "teaching-example (no real model)",
	"input_tokens":      "128 each",
	"output_tokens":     "3-6",
	"arrival":           "open loop, 10 attempts at fixed send times",
	"timeout_policy":    fmt.Sprintf("%d ms to first token", variantTimeoutMS),
	"retries":           "none",
	"warmup":            "none (all attempts counted)",
	"prefix_reuse":      "none",
	"quality_rubric":    "pre-agreed rubric, rated per complete success",
}

func variant(key []byte, learnerID string, conditions map[string]string, version string) ([]byte, error) {
	if len(key) < secret.MinKeyBytes {
		return nil, fmt.Errorf("variant: key shorter than %d bytes", secret.MinKeyBytes)
	}
	var seed [32]byte
	copy(seed[:], secret.MAC(key, "coursekit.variant/v1", Unit, learnerID))
	g := &vgen{r: rand.NewChaCha8(seed)}

	windowMS := float64(12000 + 1000*g.intn(19)) // 12 … 30 s
	cost := float64(10+g.intn(90)) / 1000        // 0.010 … 0.099 CNY
	slow := g.intn(2)                            // a second, slower latency miss?
	fast := 1 + g.intn(4-slow)                   // successes under 0.5 s (1 … 4-slow)
	mid := 5 - slow - fast                       // passes in (0.5 s, 1 s]

	type kind struct {
		outcome trace.Outcome
		ttftMS  float64
		quality trace.Quality
	}
	var kinds []kind
	ok := func(ttft float64, q trace.Quality) { kinds = append(kinds, kind{trace.OK, ttft, q}) }
	for _, v := range g.distinct(fast, 100, 480) {
		ok(v, trace.Pass)
	}
	ok(500, trace.Pass) // exactly at the tightened SLO
	for _, v := range g.distinct(mid, 510, 990) {
		ok(v, trace.Pass)
	}
	qf := float64(150 + 10*g.intn(81)) // 150 … 950, under the 1 s SLO
	if qf == 500 {
		qf = 510
	}
	ok(qf, trace.Fail)                          // fast, but not a qualified answer
	ok(float64(1010+10*g.intn(39)), trace.Pass) // just above 1 s
	if slow == 1 {
		ok(float64(1500+10*g.intn(150)), trace.Pass) // a long wait in the queue
	}
	kinds = append(kinds, kind{outcome: trace.Timeout}, kind{outcome: trace.ConnectError})
	for i := len(kinds) - 1; i > 0; i-- { // Fisher–Yates, with our own draws
		j := g.intn(i + 1)
		kinds[i], kinds[j] = kinds[j], kinds[i]
	}

	conds, _ := json.Marshal(conditions)
	meta, _ := json.Marshal(map[string]string{"variant": version})
	var buf bytes.Buffer
	tw, err := trace.NewWriter(&buf, trace.Header{Clock: "client", Window: trace.Window{StartMS: 0, EndMS: windowMS},
		WindowCost: &cost, Currency: "CNY", Conditions: conds, Meta: meta})
	if err != nil {
		return nil, err
	}
	// Starts are spread so that even a timeout (2.5 s) or the slowest
	// success (< 4 s) ends inside the window: all results are in.
	step := (windowMS - 4000) / float64(len(kinds))
	for i, k := range kinds {
		start := float64(int(float64(i)*step)/10*10) + float64(10*g.intn(int(step/30)))
		a := trace.Attempt{ID: fmt.Sprintf("R%d", i+1), StartMS: start, Outcome: k.outcome, InputTokens: 128, HasEnd: true}
		switch k.outcome {
		case trace.OK:
			a.HTTPStatus = 200
			a.Quality = k.quality
			t := start + k.ttftMS
			n := 3 + g.intn(4)
			for range n {
				a.Events = append(a.Events, trace.Event{TMS: t, Tokens: 1})
				t += float64(50 + 10*g.intn(11))
			}
			a.EndMS = a.Events[n-1].TMS + float64(10+10*g.intn(4))
			a.OutputTokens = n
		case trace.Timeout:
			a.EndMS = start + variantTimeoutMS
			a.Error = fmt.Sprintf("no first token within %d ms; client gave up", variantTimeoutMS)
		case trace.ConnectError:
			a.EndMS = start + float64(2+g.intn(8))
			a.Error = "connect: connection refused"
		}
		if err := tw.Write(&a); err != nil {
			return nil, err
		}
	}
	if err := tw.Flush(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// VariantTrace is Variant, read back as a trace.
func VariantTrace(key []byte, learnerID string) (*trace.Trace, []byte, error) {
	b, err := Variant(key, learnerID)
	if err != nil {
		return nil, nil, err
	}
	t, err := trace.Read(bytes.NewReader(b), VariantTraceName)
	return t, b, err
}

// vgen draws from a seeded stream with arithmetic that is ours, so the
// variants do not depend on how a library maps random bits to ranges.
type vgen struct{ r *rand.ChaCha8 }

func (g *vgen) intn(n int) int { return int(g.r.Uint64() % uint64(n)) }

// distinct draws n different multiples of 10 in [lo, hi], sorted.
func (g *vgen) distinct(n int, lo, hi int) []float64 {
	seen := map[int]bool{}
	var out []float64
	for len(out) < n {
		v := lo + 10*g.intn((hi-lo)/10+1)
		if !seen[v] {
			seen[v] = true
			out = append(out, float64(v))
		}
	}
	return out
}
