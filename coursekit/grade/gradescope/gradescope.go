package gradescope

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/llmperf-course/course/coursekit/card"
	"github.com/llmperf-course/course/coursekit/grade/assign"
	"github.com/llmperf-course/course/coursekit/grade/criteria"
	"github.com/llmperf-course/course/coursekit/grade/feedback"
	"github.com/llmperf-course/course/coursekit/grade/grader"
	"github.com/llmperf-course/course/coursekit/grade/integrity"
	"github.com/llmperf-course/course/coursekit/internal/safetext"
)

// GSResults is Gradescope's results.json, field for field as its
// autograder spec lists them. Scores are pointers so that 0 is written and
// "no score" (an informational test) stays absent.
type GSResults struct {
	Score            *float64        `json:"score,omitempty"`
	ExecutionTime    *float64        `json:"execution_time,omitempty"`
	Output           string          `json:"output,omitempty"`
	OutputFormat     string          `json:"output_format,omitempty"`
	TestOutputFormat string          `json:"test_output_format,omitempty"`
	TestNameFormat   string          `json:"test_name_format,omitempty"`
	Visibility       string          `json:"visibility,omitempty"`
	StdoutVisibility string          `json:"stdout_visibility,omitempty"`
	ExtraData        map[string]any  `json:"extra_data,omitempty"`
	Tests            []GSTest        `json:"tests,omitempty"`
	Leaderboard      []GSLeaderEntry `json:"leaderboard,omitempty"`
}

// GSTest is one entry of results.json's tests.
type GSTest struct {
	Score        *float64       `json:"score,omitempty"`
	MaxScore     *float64       `json:"max_score,omitempty"`
	Status       string         `json:"status,omitempty"`
	Name         string         `json:"name,omitempty"`
	NameFormat   string         `json:"name_format,omitempty"`
	Number       string         `json:"number,omitempty"`
	Output       string         `json:"output,omitempty"`
	OutputFormat string         `json:"output_format,omitempty"`
	Tags         []string       `json:"tags,omitempty"`
	Visibility   string         `json:"visibility,omitempty"`
	ExtraData    map[string]any `json:"extra_data,omitempty"`
}

// GSLeaderEntry is one leaderboard column.
type GSLeaderEntry struct {
	Name  string `json:"name"`
	Value any    `json:"value"`
	Order string `json:"order,omitempty"`
}

func ptr(v float64) *float64 { return &v }

// Gradescope is the submission as results.json. Public criteria are
// visible; hidden ones are "after_published" and carry their message and
// score, never an expected value; free text waiting for a person is an
// informational test without a score; integrity is a score-less test with
// a status. An ungradable submission scores 0 with the reason, as a
// visible failed test.
func Gradescope(s *grader.Submission) *GSResults {
	r := &GSResults{
		Score:            ptr(criteria.Round2(s.Total)),
		OutputFormat:     "md",
		TestOutputFormat: "text",
		TestNameFormat:   "text",
		Visibility:       "visible",
		StdoutVisibility: "hidden",
		ExtraData:        map[string]any{"unit": assign.Unit, "nbformat": s.NBFormat},
	}
	if s.Learner != "" {
		r.ExtraData["learner"] = s.Learner
	}
	if !s.Gradable {
		r.Score = ptr(0)
		r.Output = feedback.MDEscape("无法评分：" + s.Reason)
		if o := s.Override; o != nil {
			r.Score = ptr(o.Points)
			r.Output += "\n\n" + feedback.MDEscape(feedback.OverrideLine(s))
		}
		r.ExtraData["reason_code"] = s.ReasonCode
		r.Tests = []GSTest{{Name: "无法评分", Number: "0.1", Status: "failed", Output: s.Reason, Visibility: "visible", Tags: []string{"ungradable"}}}
		return r
	}
	r.Output = feedback.MDEscape(s.StatusLine) + "\n\n评分程序只解析口径卡单元格里的代码（不运行），用发给你的 trace 重新计算每一项；自检输出只用来确认自检运行过。隐藏检查在成绩发布后可见。"
	n := map[string]int{}
	for _, x := range s.Scores {
		t := GSTest{Name: x.Title + " [" + x.ID + "]", Output: x.Message, Tags: []string{x.Kind}}
		switch x.Kind {
		case criteria.KindPublic:
			n["1"]++
			t.Number = fmt.Sprintf("1.%d", n["1"])
			t.Visibility = "visible"
		case criteria.KindHidden:
			n["2"]++
			t.Number = fmt.Sprintf("2.%d", n["2"])
			t.Visibility = "after_published"
		case criteria.KindManual:
			n["3"]++
			t.Number = fmt.Sprintf("3.%d", n["3"])
			t.Visibility = "visible"
		case criteria.KindExecution:
			t.Number = "5.1"
			t.Visibility = "visible"
		}
		if x.Pending {
			t.Output = "文字题，等待老师阅读评分（满分 " + criteria.FmtPts(x.Max) + "）。"
			if x.Kind != criteria.KindManual {
				t.Output = x.Message
			}
		} else {
			t.Score, t.MaxScore = ptr(criteria.Round2(x.Points)), ptr(x.Max)
			if x.Status == card.Pass {
				t.Status = "passed"
			} else {
				t.Status = "failed"
			}
		}
		if x.Kind == criteria.KindManual {
			for _, m := range s.Manual {
				if m.ID == x.ID && m.Comment != "" {
					t.Output += "\n" + feedback.CommentLabel + m.Comment
				}
			}
		}
		r.Tests = append(r.Tests, t)
	}
	integ := GSTest{Name: "笔记本完整性", Number: "4.1", Status: "passed", Output: "锁定的单元格未改动，输出与口径卡一致。", Visibility: "visible", Tags: []string{"integrity"}}
	var lines, codes []string
	for _, f := range integrity.LearnerFacing(s.Integrity) {
		mark := "注意"
		if f.Warn {
			mark = "问题"
			integ.Status = "failed"
		}
		lines = append(lines, mark+"："+f.Message)
		codes = append(codes, f.Code)
	}
	if len(lines) > 0 {
		integ.Output = strings.Join(lines, "\n")
		r.ExtraData["integrity"] = codes
	}
	r.Tests = append(r.Tests, integ)
	return r
}

// GradescopeJSON is Gradescope(s) as indented JSON.
func GradescopeJSON(s *grader.Submission) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	err := enc.Encode(Gradescope(s))
	return safetext.JSON(buf.Bytes()), err
}

var (
	gsFormats    = map[string]bool{"text": true, "simple_format": true, "html": true, "md": true, "ansi": true}
	gsVisibility = map[string]bool{"hidden": true, "after_due_date": true, "after_published": true, "visible": true}
	gsStatus     = map[string]bool{"passed": true, "failed": true}
)

// ValidateResultsJSON checks raw against the results.json spec: only the
// documented keys, each of its documented type and enum, and a top-level
// score or a score on every test. Gradescope rejects the whole run for an
// invalid file, so the grader checks what it writes.
func ValidateResultsJSON(raw []byte) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var top map[string]any
	if err := dec.Decode(&top); err != nil {
		return fmt.Errorf("results.json: %w", err)
	}
	if dec.More() {
		return errors.New("results.json: trailing data after the object")
	}
	v := validator{}
	v.object("", top, map[string]func(string, any){
		"score":              v.number,
		"execution_time":     v.number,
		"output":             v.str,
		"output_format":      v.enum(gsFormats),
		"test_output_format": v.enum(gsFormats),
		"test_name_format":   v.enum(gsFormats),
		"visibility":         v.enum(gsVisibility),
		"stdout_visibility":  v.enum(gsVisibility),
		"extra_data":         v.anyObject,
		"tests": func(path string, x any) {
			arr, ok := x.([]any)
			if !ok {
				v.errf("%s: want an array", path)
				return
			}
			for i, t := range arr {
				obj, ok := t.(map[string]any)
				if !ok {
					v.errf("%s[%d]: want an object", path, i)
					continue
				}
				p := fmt.Sprintf("%s[%d]", path, i)
				v.object(p, obj, map[string]func(string, any){
					"score":         v.number,
					"max_score":     v.number,
					"status":        v.enum(gsStatus),
					"name":          v.str,
					"name_format":   v.enum(gsFormats),
					"number":        v.str,
					"output":        v.str,
					"output_format": v.enum(gsFormats),
					"tags":          v.strings,
					"visibility":    v.enum(gsVisibility),
					"extra_data":    v.anyObject,
				})
			}
		},
		"leaderboard": func(path string, x any) {
			arr, ok := x.([]any)
			if !ok {
				v.errf("%s: want an array", path)
				return
			}
			for i, e := range arr {
				obj, ok := e.(map[string]any)
				p := fmt.Sprintf("%s[%d]", path, i)
				if !ok {
					v.errf("%s: want an object", p)
					continue
				}
				if _, ok := obj["name"]; !ok {
					v.errf("%s: name is required", p)
				}
				if _, ok := obj["value"]; !ok {
					v.errf("%s: value is required", p)
				}
				v.object(p, obj, map[string]func(string, any){
					"name": v.str,
					"value": func(p string, x any) {
						switch x.(type) {
						case json.Number, string:
						default:
							v.errf("%s: want a number or a string", p)
						}
					},
					"order": v.enum(map[string]bool{"asc": true, "desc": true}),
				})
			}
		},
	})
	if _, ok := top["score"]; !ok {
		tests, _ := top["tests"].([]any)
		if len(tests) == 0 {
			v.errf("score: required when there are no tests")
		}
		for i, t := range tests {
			if obj, ok := t.(map[string]any); ok {
				if _, ok := obj["score"]; !ok {
					v.errf("tests[%d].score: required when there is no top-level score", i)
				}
			}
		}
	}
	return errors.Join(v.errs...)
}

type validator struct{ errs []error }

func (v *validator) errf(format string, a ...any) {
	v.errs = append(v.errs, fmt.Errorf("results.json: "+format, a...))
}

func (v *validator) object(path string, obj map[string]any, fields map[string]func(string, any)) {
	for k, x := range obj {
		p := k
		if path != "" {
			p = path + "." + k
		}
		f, ok := fields[k]
		if !ok {
			v.errf("%s: not a results.json field", p)
			continue
		}
		f(p, x)
	}
}

func (v *validator) number(p string, x any) {
	if _, ok := x.(json.Number); !ok {
		v.errf("%s: want a number", p)
	}
}

func (v *validator) str(p string, x any) {
	if _, ok := x.(string); !ok {
		v.errf("%s: want a string", p)
	}
}

func (v *validator) strings(p string, x any) {
	arr, ok := x.([]any)
	if !ok {
		v.errf("%s: want an array of strings", p)
		return
	}
	for i, s := range arr {
		if _, ok := s.(string); !ok {
			v.errf("%s[%d]: want a string", p, i)
		}
	}
}

func (v *validator) anyObject(p string, x any) {
	if _, ok := x.(map[string]any); !ok {
		v.errf("%s: want an object", p)
	}
}

func (v *validator) enum(allowed map[string]bool) func(string, any) {
	return func(p string, x any) {
		s, ok := x.(string)
		if !ok || !allowed[s] {
			v.errf("%s: %v is not one of %s", p, x, strings.Join(slices.Sorted(maps.Keys(allowed)), "|"))
		}
	}
}
