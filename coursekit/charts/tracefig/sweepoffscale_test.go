package tracefig_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/charts"
	"github.com/llmperf-course/course/coursekit/charts/tracefig"
	"github.com/llmperf-course/course/coursekit/lang"
	"github.com/llmperf-course/course/coursekit/trace"
)

// The cost axis stops at 4× the dearest mark's cost (rounded up): where
// the cost curve is above it (few qualified at a tight SLO), the chart
// marks each such point at the axis's top, its tooltip saying the cost
// and "off scale", instead of a curve cut at the edge with no mark (walk
// 35e: clipped at 60 below about 1,130 ms).
func TestSLOSweepMarksCostOffScale(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"trace":"llm-serving/v1","clock":"client","window":{"start_ms":0,"end_ms":10000},"window_cost":1}` + "\n")
	for i := 1; i <= 20; i++ { // TTFT 100, 200, … 2000 ms
		st := float64(i * 400)
		fmt.Fprintf(&b, `{"attempt":"a%d","start_ms":%g,"outcome":"ok","quality":"pass","http_status":200,"events":[{"t_ms":%g}],"end_ms":%g}`+"\n", i, st, st+float64(i*100), st+float64(i*100)+10)
	}
	tr, err := trace.Read(strings.NewReader(b.String()), "cost.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range []lang.Lang{lang.EN, lang.ZH} {
		m := decoded(t, tracefig.SLOSweep(tr, nil, []float64{2000}, charts.WithID("s"), charts.WithLang(l)))
		axes := m["yAxis"].([]any)
		top := axes[1].(map[string]any)["max"].(float64) // 4 × 50 per 1000 at 2 s
		if top != 200 {
			t.Fatalf("%s: cost axis max %v, want 200", l, top)
		}
		var above []float64
		var off []any
		for _, s := range m["series"].([]any) {
			sm := s.(map[string]any)
			switch name := fmt.Sprint(sm["name"]); {
			case name == map[lang.Lang]string{lang.EN: "cost per 1000 qualified", lang.ZH: "每千次合格成本"}[l]:
				for _, d := range sm["data"].([]any) {
					v := d.(map[string]any)["value"].([]any)
					if c, ok := v[1].(float64); ok && c > top {
						above = append(above, v[0].(float64))
					}
				}
			case strings.Contains(name, map[lang.Lang]string{lang.EN: "off scale", lang.ZH: "超出坐标轴"}[l]):
				off = sm["data"].([]any)
			}
		}
		if len(above) == 0 || len(off) != len(above) {
			t.Fatalf("%s: %d costs above the axis (at %v), %d off-scale marks", l, len(above), above, len(off))
		}
		for i, d := range off {
			p := d.(map[string]any)
			v := p["value"].([]any)
			tip := fmt.Sprint(p["tooltip"].(map[string]any)["formatter"])
			if v[0].(float64) != above[i] || v[1].(float64) != top || !strings.Contains(tip, map[lang.Lang]string{lang.EN: "off scale", lang.ZH: "超出坐标轴"}[l]) {
				t.Errorf("%s: off-scale mark %v, tooltip %q; want at (%v, %v) saying off scale", l, v, tip, above[i], top)
			}
		}
		if tip := fmt.Sprint(off[0].(map[string]any)["tooltip"].(map[string]any)["formatter"]); !strings.Contains(tip, "1000") {
			t.Errorf("%s: the first mark's tooltip does not give its cost (1000 at 100 ms): %q", l, tip)
		}
	}
}
