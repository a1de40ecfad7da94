package grade

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/llmperf-course/course/coursekit/card"
	"github.com/llmperf-course/course/coursekit/grade/assign"
	"github.com/llmperf-course/course/coursekit/grade/criteria"
	"github.com/llmperf-course/course/coursekit/grade/grader"
	"github.com/llmperf-course/course/coursekit/grade/notebook"
	"github.com/llmperf-course/course/coursekit/grade/roster"
	"github.com/llmperf-course/course/coursekit/trace"
)

var (
	testKey     = []byte("test-instructor-key-0123456789abcdef")
	releasePath = filepath.Join("..", "..", "notebooks", "unit01", "06-deliverable.ipynb")
	publicPath  = filepath.Join("..", "..", "data", "unit01", "trace.jsonl")
)

// fixture is a released class: the personalized notebooks and variants of
// a few learners, and a grader for them.
type fixture struct {
	roster   *roster.Roster
	nb       map[string][]byte // personalized, unfilled notebooks
	variants map[string][]byte
	public   []byte
	g        *grader.Grader
}

func newFixture(t testing.TB, ids ...string) *fixture {
	t.Helper()
	release, err := os.ReadFile(releasePath)
	if err != nil {
		t.Fatal(err)
	}
	pub, err := os.ReadFile(publicPath)
	if err != nil {
		t.Fatal(err)
	}
	ro, err := roster.NewRoster(ids...)
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{roster: ro, nb: map[string][]byte{}, variants: map[string][]byte{}, public: pub}
	for _, id := range ids {
		v, err := assign.Variant(testKey, id)
		if err != nil {
			t.Fatal(err)
		}
		nb, err := assign.Personalize(testKey, release, id, v)
		if err != nil {
			t.Fatal(err)
		}
		f.nb[id], f.variants[id] = nb, v
	}
	f.g, err = grader.NewGrader(grader.Options{Key: testKey, Roster: ro, Public: pub})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func readTrace(t testing.TB, b []byte) *trace.Trace {
	t.Helper()
	tr, err := trace.Read(bytes.NewReader(b), "trace.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// correctCard is a right answer for trace b: the reference card's path map
// and prose, with every figure recomputed from b.
func correctCard(t testing.TB, b []byte) *card.Card {
	t.Helper()
	s := criteria.SummaryOf(readTrace(t, b))
	c := &card.Card{
		Path: card.PathMap{
			Task: card.InferenceTask,
			Steps: []card.Step{
				{Name: "客户端发起请求", Layer: card.Inference, Data: "提示词（128 个输入 token）", Output: "一次尝试", Failure: "连接失败"},
				{Name: "排队与调度", Layer: card.Inference, Data: "等待中的请求", Device: "CPU 调度器", Failure: "队列过长，首字前超时"},
				{Name: "模型执行", Layer: card.Device, Data: "输入 token 与模型参数", Device: "GPU", Output: "生成的 token", Failure: "显存不足"},
				{Name: "流式响应", Layer: card.Inference, Output: "流式事件", Failure: "流中途断开"},
				{Name: "客户端接收", Layer: card.Inference, Data: "到达的流式事件", Output: "完整回答与时间戳", Failure: "超时放弃"},
			},
			SamplingPoint: "客户端接收",
			SamplingNote:  "客户端单调时钟",
		},
		Clock:            "client",
		Window:           card.Window{Seconds: s.WindowS, Kind: "fixed"},
		PercentileMethod: "nearest-rank",
		SuccessSamples:   s.TTFT.N,
		Attempts:         int(s.Attempts),
		P95:              card.Figure{Value: *s.TTFT.P95 / 1000, Unit: "s"},
		FailureRate:      card.Ratio{Num: float64(s.Failures), Den: float64(s.Attempts), Unit: "失败尝试/全部尝试"},
		CounterEvidence:  "GPU 利用率高只说明设备在忙。同一窗口里有请求在首字前等了 2.5 s 超时，还有请求的 TTFT 超过 1 s：请求在排队，用户等得很久。",
		Streaming:        card.Streaming{Recorded: "event", Aggregation: "ITL 取同一请求内相邻事件的间隔，只用完整成功的请求，用 nearest-rank 取分位。"},
		DenominatorError: "删掉失败请求后只在成功请求里数失败，得到失败率 0，于是写成“服务失败率为零”。错在分母：应是全部尝试。",
		Outputs: card.Outputs{
			Training:  "训练反复更新参数，交付经验证的检查点（模型状态）。",
			Inference: "推理处理每个新请求，交付及时且质量合格的回答。",
		},
		Uncertain: "成功样本很少,我不确定换一个窗口 P95 是否还成立。",
	}
	// Each learner answers in their own words: a tag from the trace keeps
	// two learners' free text from being word for word the same (a copy
	// finding) unless one hands in a card made from the other's trace.
	sum := sha256.Sum256(b)
	tag := fmt.Sprintf("（我的 trace %x）", sum[:3])
	for _, p := range []*string{&c.CounterEvidence, &c.Streaming.Aggregation, &c.DenominatorError, &c.Outputs.Training, &c.Uncertain} {
		*p += tag
	}
	for i, slo := range []float64{1, 0.5} {
		w := s.Conditions[i]
		c.Conditions = append(c.Conditions, card.Condition{
			SLO:           card.Figure{Value: slo, Unit: "s"},
			QualifiedRate: card.Ratio{Num: float64(w.Qualified), Den: float64(s.Attempts), Unit: "合格尝试/全部尝试"},
			Qualified:     int(w.Qualified),
			Goodput:       card.Figure{Value: w.GoodputPerS, Unit: "合格次/s"},
			CostPer1000:   card.Figure{Value: *w.CostPer1000, Unit: "元/千次合格"},
		})
	}
	return c
}

// mistakenCard has the unit's typical mistakes: the failed attempts
// deleted (8 attempts, failure rate 0/8), "<" instead of "≤" at 0.5 s (the
// attempt exactly at 0.5 s dropped, cost following), goodput counted per
// attempt instead of per second of the window, and no counter-evidence.
func mistakenCard(t testing.TB, b []byte) *card.Card {
	c := correctCard(t, b)
	c.Attempts = c.SuccessSamples
	c.FailureRate = card.Ratio{Num: 0, Den: float64(c.Attempts), Unit: "失败尝试/全部尝试"}
	for i := range c.Conditions {
		x := &c.Conditions[i]
		if i == 1 {
			x.Qualified--
			x.CostPer1000.Value = x.CostPer1000.Value * float64(x.Qualified+1) / float64(x.Qualified)
		}
		x.Goodput.Value = float64(x.Qualified) / float64(c.Attempts)
		x.QualifiedRate = card.Ratio{Num: float64(x.Qualified), Den: float64(c.Attempts), Unit: "合格尝试/全部尝试"}
	}
	c.CounterEvidence = ""
	return c
}

// goLiteral writes c as the card cell a learner would: a Go declaration.
func goLiteral(c *card.Card) string {
	return "// 你的指标口径卡\nvar myCard = " + fmt.Sprintf("%#v", *c) + "\n"
}

// payloadFor is what the self-check would embed after running c against
// the trace bytes v.
func payloadFor(t testing.TB, c *card.Card, v []byte) []byte {
	t.Helper()
	p, err := card.MarshalPayload(c, card.Check(c, readTrace(t, v)), card.IdentifyBytes(assign.VariantTraceName, v))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// selfCheckOutput is a display_data output as GoNB saves it: the payload
// as a JSON string under card.MIMEType.
func selfCheckOutput(payload []byte) map[string]any {
	return map[string]any{
		"output_type": "display_data",
		"metadata":    map[string]any{},
		"data":        map[string]any{card.MIMEType: string(payload), "text/plain": "公开检查 …"},
	}
}

// edit decodes a notebook, lets f change it, and encodes it again.
func edit(t testing.TB, nb []byte, f func(nb map[string]any, cells []any) []any) []byte {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(nb, &m); err != nil {
		t.Fatal(err)
	}
	cells, _ := m["cells"].([]any)
	m["cells"] = f(m, cells)
	out, err := json.MarshalIndent(m, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func role(cell any) string {
	md, _ := cell.(map[string]any)["metadata"].(map[string]any)
	ck, _ := md["coursekit"].(map[string]any)
	r, _ := ck["role"].(string)
	return r
}

func cellByRole(cells []any, r string) map[string]any {
	for _, c := range cells {
		if role(c) == r {
			return c.(map[string]any)
		}
	}
	return nil
}

// fill writes the card cell's source and the self-check's output, as a
// learner who ran the notebook would leave it.
func fill(t testing.TB, nb []byte, cardSrc string, payload []byte) []byte {
	return edit(t, nb, func(_ map[string]any, cells []any) []any {
		cellByRole(cells, notebook.RoleCard)["source"] = cardSrc
		if payload != nil {
			cellByRole(cells, notebook.RoleSelfCheck)["outputs"] = []any{selfCheckOutput(payload)}
		}
		return cells
	})
}

// submitted is learner id's notebook filled with c, checked against their
// own variant.
func (f *fixture) submitted(t testing.TB, id string, c *card.Card) []byte {
	return fill(t, f.nb[id], goLiteral(c), payloadFor(t, c, f.variants[id]))
}

func statuses(s *grader.Submission) map[string]string {
	m := map[string]string{}
	for _, x := range s.Scores {
		switch {
		case x.Pending:
			m[x.ID] = "pending"
		case x.Status == card.Pass:
			m[x.ID] = "pass"
		default:
			m[x.ID] = "fail"
		}
	}
	return m
}
