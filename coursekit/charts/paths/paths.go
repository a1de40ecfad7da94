package paths

import (
	"fmt"
	"strconv"
	"strings"

	ec "github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"
	"github.com/go-echarts/go-echarts/v2/types"

	"github.com/llmperf-course/course/coursekit/card"
	"github.com/llmperf-course/course/coursekit/charts"
	"github.com/llmperf-course/course/coursekit/charts/internal/draw"
)

// graphNode is a graph node with its own label and an explicit id.
//
// go-echarts' opts.GraphNode writes x and y with omitempty, so a node at 0
// loses its coordinate and vanishes under layout "none"; it also has no
// per-node label. Here x and y are always written (and the layouts below
// still keep every coordinate ≥ 1), and the unique id lets two steps share
// a name without ECharts silently merging them.
type graphNode struct {
	ID         string  `json:"id"`
	Name       string  `json:"name"`
	X          float64 `json:"x"`
	Y          float64 `json:"y"`
	Category   *int    `json:"category,omitempty"`
	Symbol     string  `json:"symbol,omitempty"`
	SymbolSize any     `json:"symbolSize,omitempty"`
	// SymbolRotate turns the symbol, in degrees counter-clockwise.
	SymbolRotate float64           `json:"symbolRotate,omitempty"`
	Label        *opts.Label       `json:"label,omitempty"`
	ItemStyle    *opts.ItemStyle   `json:"itemStyle,omitempty"`
	Tooltip      *draw.NodeTooltip `json:"tooltip,omitempty"`
}

// graphLink joins two nodes by id.
type graphLink struct {
	Source    string          `json:"source"`
	Target    string          `json:"target"`
	Label     *opts.EdgeLabel `json:"label,omitempty"`
	LineStyle *opts.LineStyle `json:"lineStyle,omitempty"`
	Symbol    []string        `json:"symbol,omitempty"`
}

// The four layers, in the order the unit introduces them; their index is
// the graph category.
var layers = []struct {
	layer card.Layer
	name  string
	color string
}{
	{card.Device, "设备层", "#3ba272"},
	{card.Training, "训练层", "#5470c6"},
	{card.Inference, "推理层", "#fc8452"},
	{card.Platform, "平台层", "#9a60b4"},
}

func layerIndex(l card.Layer) *int {
	for i, x := range layers {
		if x.layer == l {
			return &i
		}
	}
	return nil
}

// layerColor is the layer's colour, grey for a layer not named.
func layerColor(l card.Layer) string {
	for _, x := range layers {
		if x.layer == l {
			return x.color
		}
	}
	return "#999"
}

func layerName(l card.Layer) string {
	if i := layerIndex(l); i != nil {
		return layers[*i].name
	}
	if l == "" {
		return "未标层"
	}
	return draw.Label(string(l))
}

func layerCategories() []*opts.GraphCategory {
	var cs []*opts.GraphCategory
	for _, l := range layers {
		cs = append(cs, &opts.GraphCategory{Name: l.name, ItemStyle: &opts.ItemStyle{Color: l.color}})
	}
	return cs
}

// newGraph builds a layout-"none" graph with the four layers as legend.
func newGraph(c draw.Config, title, subtitle string, nodes []graphNode, links []graphLink) *ec.Graph {
	g := ec.NewGraph()
	g.SetGlobalOptions(
		c.Init(),
		ec.WithTitleOpts(draw.Centered(draw.Titled(title, subtitle))),
		ec.WithLegendOpts(opts.Legend{Show: opts.Bool(true), Top: "58", Data: layerNames()}),
		ec.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true)}),
		ec.WithAnimation(false),
	)
	g.AddSeries("路径", nil, nil,
		ec.WithGraphChartOpts(opts.GraphChart{
			Layout:         "none",
			Roam:           opts.Bool(false),
			EdgeSymbol:     []string{"none", "arrow"},
			EdgeSymbolSize: 10,
			Categories:     layerCategories(),
		}),
		ec.WithLabelOpts(opts.Label{Show: opts.Bool(true), Position: "inside", Color: "#fff", FontSize: 13, FontWeight: "bold"}),
		ec.WithLineStyleOpts(opts.LineStyle{Width: 2, Color: "#888"}),
		ec.WithSeriesOpts(func(s *ec.SingleSeries) {
			s.Data = nodes
			s.Links = links
			s.Top, s.Bottom, s.Left, s.Right = "100", "40", "95", "95"
		}),
	)
	return g
}

func layerNames() []string {
	var ns []string
	for _, l := range layers {
		ns = append(ns, l.name)
	}
	return ns
}

// boxSize is the size of a step box.
var boxSize = []int{150, 40}

func stepNode(id, name string, x, y float64, l card.Layer) graphNode {
	return graphNode{ID: id, Name: name, X: x, Y: y, Category: layerIndex(l), Symbol: "roundRect", SymbolSize: boxSize}
}

// invisible hides a node that only carries a label: ECharts draws no label
// for a node whose symbol is "none".
var invisible = &opts.ItemStyle{Color: "rgba(0,0,0,0)"}

// headingNode is an invisible node that carries a left-aligned caption.
func headingNode(id, text string, x, y float64) graphNode {
	return graphNode{ID: id, Name: text, X: x, Y: y, Symbol: "circle", SymbolSize: 1, ItemStyle: invisible,
		Label:   &opts.Label{Show: opts.Bool(true), Position: "right", Color: "#333", FontSize: 13, FontWeight: "normal"},
		Tooltip: &draw.NodeTooltip{Show: false}}
}

func link(from, to string) graphLink { return graphLink{Source: from, Target: to} }

// arrowNode is a small right-pointing arrow between two boxes of a row.
// ECharts trims an edge by the mean of a node's width and height, so the
// edge's own arrowhead ends up hidden under a wide box.
func arrowNode(id string, x, y float64) graphNode {
	return graphNode{ID: id, Name: "→", X: x, Y: y, Symbol: "arrow", SymbolSize: []int{12, 14}, SymbolRotate: -90,
		ItemStyle: &opts.ItemStyle{Color: "#777"}, Label: &opts.Label{Show: opts.Bool(false)}, Tooltip: &draw.NodeTooltip{Show: false}}
}

// System is Figure 01.1: the training path (数据供给 → 前向/反向/更新 →
// 可恢复检查点 → 验证、打包与发布) joined through the released artifact to
// the inference path (客户端请求 → 排队/模型执行 → 流式响应), over the
// shared resources, coloured by the four layers.
func System(options ...charts.Option) *ec.Graph {
	c := draw.NewConfig("100%", "560px", options)
	const (
		x1, x2, x3, x4 = 110, 340, 570, 800
		yTrain, yInf   = 130, 300
		yRes           = 460
	)
	nodes := []graphNode{
		headingNode("h_train", "训练路径：关心更新是否正确、进展能否恢复", 30, yTrain-55),
		stepNode("data", "数据供给", x1, yTrain, card.Training),
		stepNode("update", "前向 / 反向 / 更新", x2, yTrain, card.Training),
		stepNode("ckpt", "可恢复检查点", x3, yTrain, card.Training),
		stepNode("release", "验证、打包与发布", x4, yTrain, card.Platform),

		headingNode("h_inf", "推理路径：关心请求是否及时得到合格结果", 30, yInf-55),
		stepNode("client", "客户端请求", x1, yInf, card.Inference),
		stepNode("exec", "排队 / 模型执行", (x2+x3)/2, yInf, card.Inference),
		stepNode("stream", "流式响应", x4, yInf, card.Inference),

		headingNode("h_res", "共同资源：两条路径都要用到，也都会在这里等待", 30, yRes-55),
		stepNode("cpu", "CPU 与设备执行", x1, yRes, card.Device),
		stepNode("mem", "内存与存储", x2, yRes, card.Device),
		stepNode("comm", "设备通信", x3, yRes, card.Device),
		stepNode("sched", "资源调度", x4, yRes, card.Platform),
		arrowNode("a1", (x1+x2)/2, yTrain), arrowNode("a2", (x2+x3)/2, yTrain), arrowNode("a3", (x3+x4)/2, yTrain),
		arrowNode("a4", (x1+(x2+x3)/2)/2, yInf), arrowNode("a5", ((x2+x3)/2+x4)/2, yInf),
	}
	release := link("release", "exec")
	release.Label = &opts.EdgeLabel{Show: opts.Bool(true), Formatter: "发布的模型产物", Color: "#9a60b4", FontSize: 12}
	release.LineStyle = &opts.LineStyle{Type: "dashed", Width: 2, Color: "#9a60b4"}
	links := []graphLink{
		link("data", "update"), link("update", "ckpt"), link("ckpt", "release"),
		release,
		link("client", "exec"), link("exec", "stream"),
	}
	return newGraph(c, "图 01.1 · 训练与推理两条路径，共用一层资源",
		"检查点经验证、打包与发布后才进入推理服务 · 颜色 = 四层：设备层 · 训练层 · 推理层 · 平台层", nodes, links)
}

// Map draws a learner's own path map the way System draws the
// unit's: the steps in order, coloured by layer, each with its data, device
// and output written under it and its failure point as a red node below;
// the sampling point is outlined and pinned. Missing marks read "未标出".
func Map(pm card.PathMap, options ...charts.Option) *ec.Graph {
	const perRow, dx = 6, 180

	var nodes []graphNode
	var links []graphLink
	sampled := false
	// Every text is wrapped, never cut, so a row is as tall as its tallest
	// step: the box, the three marks under it and the failure point below.
	type stepText struct {
		name, detail, failure []string
	}
	texts := make([]stepText, len(pm.Steps))
	for i, st := range pm.Steps {
		name := draw.WholeText(st.Name)
		if name == "" {
			name = fmt.Sprintf("步骤 %d（未命名）", i+1)
		}
		var detail []string
		for _, m := range [][2]string{{"数据：", st.Data}, {"设备：", st.Device}, {"输出：", st.Output}} {
			detail = append(detail, wrapLines(m[0]+orMissing(draw.WholeText(m[1])), detailWidth)...)
		}
		texts[i] = stepText{wrapLines(name, boxWidth), detail, wrapLines("失败："+orMissing(draw.WholeText(st.Failure)), failWidth)}
	}
	rowTop := 150.0
	for row := 0; row*perRow < len(pm.Steps); row++ {
		boxLines, detailLines, failLines := 1, 0, 1
		for _, tx := range texts[row*perRow : min(len(texts), (row+1)*perRow)] {
			boxLines, detailLines, failLines = max(boxLines, len(tx.name)), max(detailLines, len(tx.detail)), max(failLines, len(tx.failure))
		}
		boxH := max(40, 17*boxLines+14)
		y := rowTop + float64(boxH-40)/2
		detailY := y + float64(boxH)/2 + 6
		failY := detailY + float64(18*detailLines) + 30
		for i := row * perRow; i < min(len(pm.Steps), (row+1)*perRow); i++ {
			st, tx := pm.Steps[i], texts[i]
			x := float64(110 + (i%perRow)*dx)
			id := fmt.Sprintf("s%d", i)
			n := stepNode(id, strings.Join(tx.name, "\n"), x, y, st.Layer)
			n.SymbolSize = []int{boxSize[0], boxH}
			if len(tx.name) > 1 {
				// The graph shrinks a box's height with the chart's vertical scale, but not
				// its text: a long name carries its layer's colour behind it, so every line
				// reads white on colour even where it runs past the box.
				n.Label = &opts.Label{Show: opts.Bool(true), Position: "inside", Color: "#fff", FontSize: 12, FontWeight: "bold", LineHeight: 15,
					BackgroundColor: layerColor(st.Layer), BorderRadius: 6}
			}
			n.Tooltip = &draw.NodeTooltip{Show: true, Formatter: fmt.Sprintf("步骤 %d：%s<br/>层：%s", i+1, draw.WholeText(st.Name), layerName(st.Layer))}
			if pm.SamplingPoint != "" && st.Name == pm.SamplingPoint {
				sampled = true
				n.ItemStyle = &opts.ItemStyle{BorderColor: "#f2b600", BorderWidth: 5}
				// The note reads beside the pin, wrapped, on the side with room: a label
				// past the last column would be cut off at the chart's edge.
				side := "right"
				if col := i % perRow; col >= perRow-2 || i == len(pm.Steps)-1 && col > 0 {
					side = "left"
				}
				pin := graphNode{ID: id + "_sample", Name: "采集点", X: x, Y: y - float64(boxH)/2 - 42, Symbol: "pin", SymbolSize: 34,
					ItemStyle: &opts.ItemStyle{Color: "#f2b600"},
					Label:     &opts.Label{Show: opts.Bool(true), Position: side, Color: "#8a6d00", FontWeight: "bold", LineHeight: 16, Formatter: types.FuncStr(sampleText(pm.SamplingNote))},
					Tooltip:   &draw.NodeTooltip{Show: true, Formatter: "采集点：" + orMissing(draw.WholeText(pm.SamplingNote))}}
				nodes = append(nodes, pin)
			}
			nodes = append(nodes, n)
			nodes = append(nodes, graphNode{ID: id + "_detail", Name: strings.Join(tx.detail, "\n"), X: x, Y: detailY, Symbol: "circle", SymbolSize: 1, ItemStyle: invisible,
				Label:   &opts.Label{Show: opts.Bool(true), Position: "bottom", Color: "#333", FontSize: 12, FontWeight: "normal", LineHeight: 18},
				Tooltip: &draw.NodeTooltip{Show: false}})
			failure := graphNode{ID: id + "_fail", Name: strings.Join(tx.failure, "\n"), X: x, Y: failY,
				Symbol: "triangle", SymbolSize: 16, ItemStyle: &opts.ItemStyle{Color: draw.ColorFail},
				Label:   &opts.Label{Show: opts.Bool(true), Position: "bottom", Color: draw.ColorFail, FontSize: 12, FontWeight: "normal", LineHeight: 16},
				Tooltip: &draw.NodeTooltip{Show: true, Formatter: "失败点：" + orMissing(draw.WholeText(st.Failure))}}
			if st.Failure == "" {
				failure.ItemStyle = &opts.ItemStyle{Color: "#ccc"}
				failure.Label.Color = "#999"
			}
			nodes = append(nodes, failure)
			links = append(links, graphLink{Source: id, Target: id + "_fail", Symbol: []string{"none", "none"},
				LineStyle: &opts.LineStyle{Type: "dashed", Width: 1, Color: "#d99"}})
			if i > 0 {
				l := link(fmt.Sprintf("s%d", i-1), id)
				if i%perRow != 0 {
					nodes = append(nodes, arrowNode(id+"_arrow", x-dx/2, y))
				} else {
					l.LineStyle = &opts.LineStyle{Curveness: 0.08, Width: 1, Color: "#aaa", Type: "dashed"}
				}
				links = append(links, l)
			}
		}
		// The graph fits its nodes, not their labels, into the chart: an invisible
		// node under the longest failure text keeps that text inside.
		bottom := failY + float64(16*failLines) + 14
		nodes = append(nodes, graphNode{ID: fmt.Sprintf("row%d_end", row), X: 110, Y: bottom, Symbol: "circle", SymbolSize: 1,
			ItemStyle: invisible, Label: &opts.Label{Show: opts.Bool(false)}, Tooltip: &draw.NodeTooltip{Show: false}})
		rowTop = bottom + 96
	}
	c := draw.NewConfig("100%", strconv.Itoa(int(max(rowTop, 450))-60)+"px", options)
	if len(pm.Steps) == 0 {
		nodes = append(nodes, headingNode("empty", "（路径图还没有步骤）", 110, 150))
	}
	task := map[card.Task]string{card.TrainingTask: "训练任务", card.InferenceTask: "推理任务"}[pm.Task]
	if task == "" {
		task = "任务类型未填"
	}
	sub := fmt.Sprintf("%d 个步骤 · 颜色 = 层 · 红色三角 = 失败点 · 金色图钉 = 采集点", len(pm.Steps))
	switch {
	case pm.SamplingPoint == "":
		sub += " · 还没有指定采集点"
	case !sampled:
		sub += " · 采集点「" + draw.WholeText(pm.SamplingPoint) + "」不是路径上的步骤"
	}
	return newGraph(c, "我的系统路径图 · "+task, sub, nodes, links)
}

// sampleText is the pin's label: the whole note, wrapped at
// sampleLineWidth CJK characters, so it is read, not guessed from "采集点:在客户…".
func sampleText(note string) string {
	if note == "" {
		return "采集点"
	}
	return wrap("采集点："+draw.WholeText(note), sampleLineWidth)
}

// The widths, in CJK characters, at which the path map wraps a step's name
// (inside its 150 px box, at 12 px when it takes more than one line), its marks, its failure point and the sampling note.
const boxWidth, detailWidth, failWidth, sampleLineWidth = 11, 11, 10, 13

// wrap is draw.Wrap: the path map's text wrapped, none of it dropped.
func wrap(s string, width float64) string { return draw.Wrap(s, width) }

// wrapLines is draw.WrapLines.
func wrapLines(s string, width float64) []string { return draw.WrapLines(s, width) }

func orMissing(s string) string {
	if strings.TrimSpace(s) == "" {
		return "未标出"
	}
	return s
}
