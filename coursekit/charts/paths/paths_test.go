package paths_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/charts"
	"github.com/llmperf-course/course/coursekit/charts/internal/charttest"
	"github.com/llmperf-course/course/coursekit/charts/paths"
)

// The golden files pin every chart's option JSON under a fixed id;
// `go test ./coursekit/charts/paths -update` rewrites them after a deliberate change.
func TestGolden(t *testing.T) {
	for name, c := range map[string]chart{
		"system_paths": paths.System(charts.WithID("system_paths")),
		"path_map":     paths.Map(unitPathMap(), charts.WithID("path_map")),
	} {
		t.Run(name, func(t *testing.T) {
			got := option(t, c)
			if !strings.Contains(c.RenderSnippet().Element, `id="`+name+`"`) {
				t.Errorf("chart id not fixed: %s", c.RenderSnippet().Element)
			}
			charttest.Golden(t, filepath.Join("testdata", name+".json"), got, *update)
		})
	}
}

// Figure 01.1 draws every node: no coordinate is 0 (go-echarts would drop
// it and ECharts would not draw the node), and every link joins two nodes.
func TestSystemPathsNodesAndLinks(t *testing.T) {
	for name, c := range map[string]chart{
		"system":  paths.System(charts.WithID("x")),
		"pathmap": paths.Map(unitPathMap(), charts.WithID("y")),
	} {
		m := decoded(t, c)
		series := m["series"].([]any)[0].(map[string]any)
		if series["layout"] != "none" {
			t.Errorf("%s: layout %v", name, series["layout"])
		}
		ids := map[string]bool{}
		names := map[string]bool{}
		for _, n := range series["data"].([]any) {
			n := n.(map[string]any)
			x, okx := n["x"].(float64)
			y, oky := n["y"].(float64)
			if !okx || !oky || x < 1 || y < 1 {
				t.Errorf("%s: node %v has coordinates (%v, %v), want both ≥ 1", name, n["name"], n["x"], n["y"])
			}
			id := n["id"].(string)
			if ids[id] {
				t.Errorf("%s: duplicate node id %q", name, id)
			}
			ids[id] = true
			names[n["name"].(string)] = true
		}
		for _, l := range series["links"].([]any) {
			l := l.(map[string]any)
			if !ids[l["source"].(string)] || !ids[l["target"].(string)] {
				t.Errorf("%s: link %v joins unknown nodes", name, l)
			}
		}
		if name == "system" {
			for _, want := range []string{"数据供给", "前向 / 反向 / 更新", "可恢复检查点", "验证、打包与发布",
				"客户端请求", "排队 / 模型执行", "流式响应", "CPU 与设备执行", "内存与存储", "设备通信", "资源调度"} {
				if !names[want] {
					t.Errorf("Figure 01.1 lacks %q", want)
				}
			}
			cats := series["categories"].([]any)
			var cn []string
			for _, c := range cats {
				cn = append(cn, c.(map[string]any)["name"].(string))
			}
			if strings.Join(cn, ",") != "设备层,训练层,推理层,平台层" {
				t.Errorf("categories %v", cn)
			}
		}
	}
}

// The learner's map marks data, device, output and failure on every step
// and pins the sampling point.
func TestPathMapMarks(t *testing.T) {
	pm := unitPathMap()
	pm.Steps[3].Failure = ""
	js := string(option(t, paths.Map(pm, charts.WithID("p"))))
	for _, want := range []string{"数据：提示词", "设备：GPU", "输出：SSE 事件", "失败：连接被拒", "失败：未标出", "采集点：客户端单调时钟", "#f2b600"} {
		if !strings.Contains(js, want) {
			t.Errorf("path map lacks %q", want)
		}
	}
	pm.SamplingPoint = "平台监控"
	js = string(option(t, paths.Map(pm, charts.WithID("p"))))
	if !strings.Contains(js, "不是路径上的步骤") {
		t.Error("a sampling point that is not a step is not called out")
	}
}

// The sampling note is shown whole (wrapped), on the side of the pin that
// has room: the last step's note used to run off the chart ("采集点:在客户…").
func TestPathMapSamplingNoteIsWholeAndInside(t *testing.T) {
	const note = "在客户端用同一个单调时钟记下发起、每个事件到达和结束的时刻"
	pm := unitPathMap()
	pm.SamplingNote = note
	pm.SamplingPoint = pm.Steps[len(pm.Steps)-1].Name
	m := decoded(t, paths.Map(pm, charts.WithID("p")))
	var label map[string]any
	for _, n := range m["series"].([]any)[0].(map[string]any)["data"].([]any) {
		if node := n.(map[string]any); strings.HasSuffix(node["id"].(string), "_sample") {
			label = node["label"].(map[string]any)
		}
	}
	if label == nil {
		t.Fatal("no sampling pin")
	}
	text := strings.ReplaceAll(label["formatter"].(string), "\n", "")
	if text != "采集点："+note || strings.Contains(text, "…") {
		t.Errorf("note cut: %q", label["formatter"])
	}
	if label["position"] != "left" {
		t.Errorf("the last step's note must open to the left, got %v", label["position"])
	}
	for _, line := range strings.Split(label["formatter"].(string), "\n") {
		if n := len([]rune(line)); n > 14 {
			t.Errorf("line of %d characters: %q", n, line)
		}
	}
}

// No text of a learner's path map is cut: long step names, marks, failure
// points and a sampling point that is not on the path all show whole
// (wrapped), with no "…" and no character alone on a line.
func TestPathMapNeverTruncates(t *testing.T) {
	pm := unitPathMap()
	pm.Steps[1].Name = "分配到某个推理实例的调度器并等待空闲的时刻"
	pm.Steps[1].Data = "请求队列中的提示词与采样参数"
	pm.Steps[1].Device = "网关所在主机的 CPU 与内存"
	pm.Steps[1].Output = "进入某个实例连续批处理的批次"
	pm.Steps[1].Failure = "排队超过客户端的超时仍未被分配到实例"
	pm.SamplingPoint = "在客户端收到第一个有效输出的那一刻"
	m := decoded(t, paths.Map(pm, charts.WithID("p")))
	var shown []string
	for _, n := range m["series"].([]any)[0].(map[string]any)["data"].([]any) {
		node := n.(map[string]any)
		shown = append(shown, node["name"].(string))
		if l, ok := node["label"].(map[string]any); ok {
			if f, ok := l["formatter"].(string); ok {
				shown = append(shown, f)
			}
		}
	}
	shown = append(shown, m["title"].(map[string]any)["subtext"].(string))
	all := strings.Join(shown, "\n")
	if strings.Contains(all, "…") {
		t.Errorf("the path map cuts text: %q", all)
	}
	flat := strings.ReplaceAll(strings.ReplaceAll(all, "\n", ""), " ", "")
	st := pm.Steps[1]
	for _, want := range []string{st.Name, st.Data, st.Device, st.Output, st.Failure, pm.SamplingPoint} {
		if !strings.Contains(flat, strings.ReplaceAll(want, " ", "")) {
			t.Errorf("%q is not shown whole", want)
		}
	}
	for _, s := range shown {
		lines := strings.Split(s, "\n")
		if last := []rune(lines[len(lines)-1]); len(lines) > 1 && len(last) == 1 {
			t.Errorf("%q leaves one character alone on a line", s)
		}
	}
}
