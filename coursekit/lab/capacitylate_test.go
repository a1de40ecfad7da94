package lab

import (
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/capacity"
	"github.com/llmperf-course/course/coursekit/metrics"
)

// The lab's answer, like the CLI's, names the steps in which the client
// itself was late: a learner's laptop under load moves verdicts, and the
// answer is what the learner reads first (walk 35j).
func TestCapacityAnswerNamesLateSteps(t *testing.T) {
	lo, hi := 0.9, 1.0
	r := &capacity.Result{Target: 0.9, SLOTTFTMS: 1000, MaxRate: 16, BoundedBy: capacity.BoundFailingStep, Steps: []capacity.Step{
		{Rate: 4, Attempts: 40, Qualified: 40, Verdict: capacity.Meets, CILow: &lo, CIHigh: &hi, ClientLag: &metrics.ClientLag{Attempts: 40, OverBound: 6, BoundMS: 5, MaxMS: 131}},
		{Rate: 8, Attempts: 80, Qualified: 30, Verdict: capacity.Fails, ClientLag: &metrics.ClientLag{Attempts: 80, BoundMS: 5, MaxMS: 1.2}},
	}}
	rate := 4.0
	r.MaxRateMeeting = &rate
	want := "注意：1 步里客户端自己迟到了（4 次/s，见各步下的说明）"
	if ans := CapacityAnswer(r); !strings.Contains(ans, want) || !strings.Contains(ans, "达标的最高速率") {
		t.Errorf("answer %q lacks %q", ans, want)
	}
	r.Steps[0].ClientLag.OverBound = 0
	if ans := CapacityAnswer(r); strings.Contains(ans, "迟到") {
		t.Errorf("a client on time called late: %q", ans)
	}
}
