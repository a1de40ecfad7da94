package card

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/llmperf-course/course/coursekit/trace"
)

// The reference answers live here, in a test file, so the package a learner
// imports cannot print them.

// unitTrace is the unit's 10-attempt teaching trace.
var unitTrace = filepath.Join("..", "..", "data", "unit01", "trace.jsonl")

func readUnitTrace(t testing.TB) *trace.Trace {
	t.Helper()
	tr, err := trace.ReadFile(unitTrace)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// reference is a complete, correct card for data/unit01/trace.jsonl.
func reference() *Card {
	return &Card{
		Path: PathMap{
			Task: InferenceTask,
			Steps: []Step{
				{Name: "客户端发起请求", Layer: Inference, Data: "提示词（128 个输入 token）", Output: "一次尝试（请求 ID、发起时刻 t₀）", Failure: "连接失败"},
				{Name: "排队与调度", Layer: Inference, Data: "等待中的请求", Device: "CPU 调度器", Failure: "队列过长，首字前超时"},
				{Name: "模型执行", Layer: Device, Data: "输入 token 与已发布的模型参数", Device: "GPU", Output: "生成的 token", Failure: "显存不足或执行出错"},
				{Name: "流式响应", Layer: Inference, Output: "流式事件，每个事件带若干 token", Failure: "流中途断开"},
				{Name: "客户端接收", Layer: Inference, Data: "到达的流式事件", Output: "完整回答与时间戳 t₁…tₙ、t_end", Failure: "超时放弃"},
			},
			SamplingPoint: "客户端接收",
			SamplingNote:  "在客户端用同一个单调时钟记下发起、每个事件到达和结束的时刻",
		},
		Clock:            ClientClock,
		Window:           Window{Seconds: 10, Kind: FixedWindow},
		PercentileMethod: NearestRank,
		SuccessSamples:   8,
		Attempts:         10,
		P95:              Figure{2, Seconds},
		FailureRate:      Ratio{2, 10, "失败尝试/全部尝试"},
		Conditions: []Condition{
			{
				SLO:           Figure{1, Seconds},
				QualifiedRate: Ratio{5, 10, "合格尝试/全部尝试"},
				Qualified:     5,
				Goodput:       Figure{0.5, "合格次/s"},
				CostPer1000:   Figure{4, "元/千次合格"},
			},
			{
				SLO:           Figure{0.5, Seconds},
				QualifiedRate: Ratio{4, 10, "合格尝试/全部尝试"},
				Qualified:     4,
				Goodput:       Figure{0.4, "合格次/s"},
				CostPer1000:   Figure{5, "元/千次合格"},
			},
		},
		CounterEvidence: "GPU 利用率高只说明设备在忙。同一窗口里 R9 在首字前等了 2.5 s 超时，R8 的 TTFT 是 2 s：请求在排队，用户等得很久。只要有长队列或很多超时，“很忙”就推不出“用户很快”。",
		Streaming: Streaming{
			Recorded:    PerEvent,
			Aggregation: "客户端记录每个流式事件的到达时刻；ITL 取同一请求内相邻事件的间隔，只用完整成功的请求，把所有间隔合在一起用 nearest-rank 取分位；一个事件带多个 token 时不按 token 平摊。",
		},
		DenominatorError: "删掉 R9、R10 后只在 8 个成功请求里数失败，得到失败率 0/8，于是写成“服务失败率为零”。错在分母：失败率的分母应是全部 10 次尝试，正确是 2/10。",
		Outputs: Outputs{
			Training:  "训练反复更新参数，交付可恢复、经验证的检查点（模型状态），看学习质量和进展能否恢复；samples/s 是训练吞吐。",
			Inference: "推理用定下的参数处理每个新请求，交付及时且质量通过的回答；看每个请求的等待、失败和输出质量，合格尝试/s 是它的产出。",
		},
		Uncertain: "只有 8 个成功样本，P95 就是最大值，我不确定换一个窗口它是否还成立；trace 也没有记录服务端排队时间，R8 慢在排队还是生成还不清楚。",
	}
}

func TestReferencePassesEveryPublicCheck(t *testing.T) {
	r := Check(reference(), readUnitTrace(t))
	for _, x := range r.Results {
		if x.Status == Fail {
			t.Errorf("%s failed: %s", x.ID, x.Hint)
		}
	}
	if !r.AllPublicPassed() {
		t.Errorf("reference card should pass every public check:\n%s", r.Text())
	}
	// The free-text rows wait for a human; everything else is decided.
	for _, id := range []string{"text.counter_evidence", "text.outputs", "text.denominator", "stream.aggregation", "text.uncertain"} {
		if x, _ := r.Result(id); x.Status != NeedsHuman {
			t.Errorf("%s: status %s, want %s", id, x.Status, NeedsHuman)
		}
	}
	if r.NeedsHuman != 5 || r.Passed != len(publicCriteria)-5 || r.Checked() != r.Passed {
		t.Errorf("counts: passed %d, failed %d, needs human %d", r.Passed, r.Failed, r.NeedsHuman)
	}
}

func TestReferencePassesEveryHiddenCheck(t *testing.T) {
	for _, x := range HiddenChecks(reference(), readUnitTrace(t)) {
		if x.Status != Pass {
			t.Errorf("%s: %s %s", x.ID, x.Status, x.Hint)
		}
	}
}

// testdata/reference.card.json is the same reference card as JSON, for the
// grader's tests and the notebook tests. Regenerate with
// `go test ./coursekit/card -run TestReferenceJSON -update`.
var update = flag.Bool("update", false, "rewrite testdata/reference.card.json")

func TestReferenceJSON(t *testing.T) {
	path := filepath.Join("testdata", "reference.card.json")
	want, err := json.MarshalIndent(reference(), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	want = append(want, '\n')
	if *update {
		if err := os.WriteFile(path, want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s is out of date; run with -update", path)
	}
	var c Card
	if err := json.Unmarshal(got, &c); err != nil {
		t.Fatal(err)
	}
	if r := Check(&c, readUnitTrace(t)); !r.AllPublicPassed() {
		t.Errorf("reference JSON does not pass:\n%s", r.Text())
	}
}
