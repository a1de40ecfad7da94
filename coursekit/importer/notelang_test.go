package importer

import (
	"encoding/json"
	"go/ast"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/dataset"
	"github.com/llmperf-course/course/coursekit/importer/importertest"
	"github.com/llmperf-course/course/coursekit/internal/gosrc"
	"github.com/llmperf-course/course/coursekit/lang"
)

// Every note an import makes is in Chinese and in English: imported from
// every fixture (with and without the tool's summary, a summary of another
// stage, a dataset to judge by), each note's Chinese has Chinese in it, its
// English none, and the Report's JSON keeps the English text as before.
func TestEveryImporterNoteIsInBothLanguages(t *testing.T) {
	var reps []*Report
	add := func(rep *Report) { reps = append(reps, rep) }
	for _, c := range importertest.Fixtures {
		opt := Options{}
		if c.Summary != "" {
			opt = Options{Summary: readSummaryFile(t, c.From, c.Summary), SummaryName: c.Summary}
		}
		add(importFile(t, c.From, c.File, opt).rep)
	}
	// A summary of another stage: the count-mismatch note.
	stage, err := ReadSummary("inference-perf", strings.NewReader(`{"load_summary": {"count": 10}, "successes": {"count": 9}, "failures": {"count": 1}}`), "stage.json")
	if err != nil {
		t.Fatal(err)
	}
	add(importFile(t, "inference-perf", "inference_perf_per_request.json", Options{Summary: stage, SummaryName: "stage.json"}).rep)
	// Saved texts judged against a longer dataset, with counts vLLM
	// disagrees with and an empty error text.
	set := dataset.Arith(1, 5)
	v := vllmResult([]any{"1", "2", ""}, []string{"", "", " "})
	v["completed"], v["num_prompts"] = 9, 9
	_, rep, err := importJSON(t, v, Options{Dataset: set})
	if err != nil {
		t.Fatal(err)
	}
	add(rep)

	seen := map[string]bool{}
	for _, rep := range reps {
		zh, en := rep.NotesIn(lang.ZH), rep.NotesIn(lang.EN)
		for k := range rep.Notes {
			if j, _ := lang.FirstCJK(zh[k]); j < 0 {
				t.Errorf("%s: a note's Chinese has no Chinese in it: %q", rep.Tool, zh[k])
			}
			if j, r := lang.FirstCJK(en[k]); j >= 0 || strings.TrimSpace(en[k]) == "" {
				t.Errorf("%s: a note's English is empty or has %q: %q", rep.Tool, r, en[k])
			}
			// The note's kind: its English up to the first digit or colon.
			seen[strings.FieldsFunc(en[k], func(r rune) bool { return r == ':' || r >= '0' && r <= '9' })[0]] = true
		}
		var back struct{ Notes []string }
		b, err := json.Marshal(rep)
		if err != nil || json.Unmarshal(b, &back) != nil || !slices.Equal(back.Notes, en) {
			t.Errorf("%s: the Report's JSON notes are not the English texts: %s (%v)", rep.Tool, b, err)
		}
	}
	t.Logf("%d kinds of note", len(seen))
	if len(seen) < 20 {
		t.Errorf("only %d kinds of note seen: the fixtures stopped reaching the importers' notes: %v", len(seen), slices.Sorted(maps.Keys(seen)))
	}
}

// Every note is made from a lang.Msg literal, which lang's test of every
// Msg checks (both texts, Chinese and English, the same verbs): no note
// can be built from an English string alone.
func TestEveryNoteIsMadeFromAMsgLiteral(t *testing.T) {
	files, err := gosrc.Parse(".", false)
	if err != nil {
		t.Fatal(err)
	}
	calls := 0
	for _, f := range files {
		ast.Inspect(f.AST, func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.CallExpr:
				arg := map[string]int{"NewNote": 0, "JoinNotes": 1}
				i, ok := arg[funcName(x.Fun)]
				if !ok {
					return true
				}
				calls++
				if len(x.Args) <= i || !isMsgLit(x.Args[i]) {
					t.Errorf("%s: %s without a lang.Msg{…} literal", f.Pos(x), funcName(x.Fun))
				}
			case *ast.CompositeLit:
				if funcName(x.Type) == "Note" && len(x.Elts) > 0 && filepath.Base(f.Path) != "note.go" {
					t.Errorf("%s: a Note literal: make notes with NewNote(lang.Msg{…})", f.Pos(x))
				}
			}
			return true
		})
	}
	if calls < 30 {
		t.Errorf("found only %d NewNote and JoinNotes calls: the walk missed the importers", calls)
	}
}

func funcName(e ast.Expr) string {
	switch x := e.(type) {
	case *ast.Ident:
		return x.Name
	case *ast.SelectorExpr:
		return x.Sel.Name
	}
	return ""
}

func isMsgLit(e ast.Expr) bool {
	c, ok := e.(*ast.CompositeLit)
	if !ok {
		return false
	}
	s, ok := c.Type.(*ast.SelectorExpr)
	return ok && s.Sel.Name == "Msg" && funcName(s.X) == "lang"
}
