package grade

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/grade/assign"
	"github.com/llmperf-course/course/coursekit/grade/batch"
	"github.com/llmperf-course/course/coursekit/grade/criteria"
	"github.com/llmperf-course/course/coursekit/grade/feedback"
	"github.com/llmperf-course/course/coursekit/grade/grader"
	"github.com/llmperf-course/course/coursekit/grade/gradescope"
	"github.com/llmperf-course/course/coursekit/grade/integrity"
	"github.com/llmperf-course/course/coursekit/grade/notebook"
	"github.com/llmperf-course/course/coursekit/grade/report"
)

// Tampering with locked cells, the release record or the outputs is
// reported per submission, by code.
func TestIntegrityTampering(t *testing.T) {
	f := newFixture(t, "alice", "bob")
	good := f.submitted(t, "alice", correctCard(t, f.variants["alice"]))
	find := func(cells []any, id string) map[string]any {
		for _, c := range cells {
			if c.(map[string]any)["id"] == id {
				return c.(map[string]any)
			}
		}
		t.Fatalf("no cell %s", id)
		return nil
	}
	cases := []struct {
		name string
		nb   []byte
		want []string
	}{
		{"instructions edited", edit(t, good, func(_ map[string]any, cells []any) []any {
			find(cells, "c51eae1edabb")["source"] = "# 06 交付\n\n随便写写就算通过。"
			return cells
		}), []string{integrity.FindLockedEdited}},
		{"data cell deleted", edit(t, good, func(_ map[string]any, cells []any) []any {
			var out []any
			for _, c := range cells {
				if role(c) != notebook.RoleData {
					out = append(out, c)
				}
			}
			return out
		}), []string{integrity.FindLockedDeleted}},
		{"self-check duplicated", edit(t, good, func(_ map[string]any, cells []any) []any {
			return append(cells, cellByRole(cells, notebook.RoleSelfCheck))
		}), []string{integrity.FindLockedDuplicated, integrity.FindDuplicateIDs}},
		{"self-check reads another file", edit(t, good, func(_ map[string]any, cells []any) []any {
			sc := cellByRole(cells, notebook.RoleSelfCheck)
			src := sc["source"].([]any)
			for i, l := range src {
				src[i] = strings.ReplaceAll(l.(string), `"trace.jsonl"`, `"../public.jsonl"`)
			}
			return cells
		}), []string{integrity.FindLockedEdited}},
		{"markdown turned into code", edit(t, good, func(_ map[string]any, cells []any) []any {
			find(cells, "cd1a1d63a9f3")["cell_type"] = "code"
			return cells
		}), []string{integrity.FindLockedEdited}},
		{"duplicate ids in the learner's cells", edit(t, good, func(_ map[string]any, cells []any) []any {
			x := map[string]any{"cell_type": "code", "id": "mine", "metadata": map[string]any{}, "source": "", "outputs": []any{}}
			return append(cells, x, x)
		}), []string{integrity.FindDuplicateIDs}},
		{"release record edited", edit(t, good, func(m map[string]any, cells []any) []any {
			a := m["metadata"].(map[string]any)["coursekit"].(map[string]any)["assignment"].(map[string]any)
			a["trace_sha256"] = strings.Repeat("0", 64)
			return cells
		}), []string{integrity.FindReleaseEdited}},
		{"release record removed", edit(t, good, func(m map[string]any, cells []any) []any {
			delete(m["metadata"].(map[string]any), "coursekit")
			return cells
		}), []string{integrity.FindNoRelease}},
		{"card edited after the self-check ran", edit(t, good, func(_ map[string]any, cells []any) []any {
			c := cellByRole(cells, notebook.RoleCard)
			c["source"] = strings.Replace(c["source"].(string), `Clock:"client"`, `Clock:"server"`, 1)
			return cells
		}), []string{integrity.FindInconsistent}},
		{"card cell not Go any more", edit(t, good, func(_ map[string]any, cells []any) []any {
			cellByRole(cells, notebook.RoleCard)["source"] = "这里本来是口径卡"
			return cells
		}), []string{integrity.FindInconsistent}},
		{"card output moved to another cell", edit(t, good, func(_ map[string]any, cells []any) []any {
			sc := cellByRole(cells, notebook.RoleSelfCheck)
			find(cells, "7009d75362a9")["outputs"] = sc["outputs"]
			sc["outputs"] = []any{}
			return cells
		}), []string{integrity.FindCardOutputOutside}},
	}
	if !strings.Contains(goLiteral(correctCard(t, f.variants["alice"])), `Clock:"client"`) {
		t.Fatal("test premise: the literal layout changed")
	}
	for _, c := range cases {
		s := f.g.Grade("alice.ipynb", c.nb)
		if !s.Gradable {
			t.Errorf("%s: ungradable (%s); tampering is reported, not refused", c.name, s.Reason)
			continue
		}
		if s.IntegrityOK() {
			t.Errorf("%s: integrity passed", c.name)
		}
		for _, code := range c.want {
			if !hasFinding(s, code) {
				t.Errorf("%s: no %s finding in %+v", c.name, code, s.Integrity)
			}
		}
		gs := gradescope.Gradescope(s)
		last := gs.Tests[len(gs.Tests)-1]
		if last.Status != "failed" || last.Score != nil || last.Output == "" {
			t.Errorf("%s: results.json integrity test %+v", c.name, last)
		}
	}

	// Bob's signed notebook named alice.ipynb is not tampering but bob's
	// work: the record decides (grader/record.go). Alone in the batch, only
	// its name says alice handed it in: bob's, with no copy finding
	// (batch/names.go).
	s := f.g.Grade("alice.ipynb", f.submitted(t, "bob", correctCard(t, f.variants["alice"])))
	batch.NewBatch(f.roster, nil, []*grader.Submission{s})
	if !s.Gradable || s.Learner != "bob" || s.NameSays != "alice" || hasFinding(s, grader.FindRecordCopied) || !hasFinding(s, grader.FindNameNotRecord) || hasFinding(s, integrity.FindOtherLearner) {
		t.Errorf("bob's notebook as alice.ipynb: %s %q learner %s name says %s, %+v", s.ReasonCode, s.Reason, s.Learner, s.NameSays, s.Integrity)
	}
}

// The card cell is read by parsing Go, never by running it; constant
// expressions count, anything else is "not comparable", not a mismatch.
func TestCardFromSource(t *testing.T) {
	f := newFixture(t, "alice")
	want := correctCard(t, f.variants["alice"])
	got, err := notebook.CardFromSource(goLiteral(want))
	if err != nil {
		t.Fatal(err)
	}
	if d := integrity.CardDiff(got, want); len(d) > 0 {
		t.Fatalf("round trip differs in %v", d)
	}
	src := "%%\n// GoNB\nvar myCard = card.Card{Window: card.Window{Seconds: 10, Kind: \"fixed\"}, Attempts: 10, FailureRate: card.Ratio{Num: 2 / 10}, Conditions: []card.Condition{{Qualified: 5, Goodput: card.Figure{5.0 / 10, \"次/\" + \"s\"}}}}\n"
	c, err := notebook.CardFromSource(src)
	if err != nil {
		t.Fatal(err)
	}
	if c.Conditions[0].Goodput.Value != 0.5 || c.Conditions[0].Goodput.Unit != "次/s" || c.FailureRate.Num != 0 {
		t.Errorf("constant arithmetic: %+v", c.Conditions[0])
	}
	for _, bad := range []string{
		"var myCard = card.Card{Attempts: len(os.Args)}",
		"var myCard = card.Card{Clock: clock}",
	} {
		if _, err := notebook.CardFromSource(bad); err != notebook.ErrNotStatic {
			t.Errorf("%q: %v, want errNotStatic", bad, err)
		}
	}
	if _, err := notebook.CardFromSource("var a, b = card.Card{}, card.Card{}"); err == nil {
		t.Error("two cards in one cell")
	}
	// A card built with a call breaks the cell contract: it is graded from
	// its output, and the instructor is warned (the output cannot be
	// checked against the code).
	nb := fill(t, f.nb["alice"], "var myCard = makeCard()\nfunc makeCard() card.Card { return card.Card{} }", payloadFor(t, want, f.variants["alice"]))
	s := f.g.Grade("alice.ipynb", nb)
	if !s.Gradable || !hasFinding(s, integrity.FindNotComparable) || s.IntegrityOK() {
		t.Errorf("card from a call: %+v", s.Integrity)
	}
	// Type errors the compiler would reject are not a card either.
	for _, bad := range []string{
		"var myCard = card.Card{Window: card.Figure{Value: 1}}",
		"var myCard = card.Card{Window: {Seconds: 1}}",
		"var myCard = card.Card{Attempts: \"10\"}",
		"var myCard = card.Card{Clock: card.Nowhere}",
		"var myCard = card.Card{Conditions: []card.Condition{{SLO: card.Ratio{}}}}",
	} {
		if _, err := notebook.CardFromSource(bad); err == nil || err == notebook.ErrNotStatic {
			t.Errorf("%q: %v, want a type error", bad, err)
		}
	}
}

// A copied card carries the other learner's numbers: the own-variant
// criterion fails and names them to the instructor, not to the learner.
func TestCopiedCardFailsTheVariantCheck(t *testing.T) {
	f := newFixture(t, "alice", "bob", "carol")
	aliceCard := correctCard(t, f.variants["alice"])

	// Bob pastes Alice's card into his own notebook and runs the self-check
	// on his own trace.
	s := f.g.Grade("bob.ipynb", f.submitted(t, "bob", aliceCard))
	x, _ := s.Score(criteria.OwnVariantID)
	if x.Status != "fail" || x.Points != 0 || !strings.Contains(x.Detail, "alice") {
		t.Fatalf("copied card: %+v", x)
	}
	if strings.Contains(x.Message, "alice") || strings.Contains(feedback.FeedbackMarkdown(s), "alice") || strings.Contains(feedback.FeedbackHTML(s), "alice") {
		t.Error("the learner's feedback names the learner copied from")
	}
	if sm := report.Summarize(batch.NewBatch(f.roster, nil, []*grader.Submission{s})); len(sm.Copies) != 1 || !strings.Contains(sm.Copies[0], "alice") {
		t.Errorf("instructor summary copies: %v", sm.Copies)
	}

	// Bob copies Alice's whole output (her self-check ran on her trace).
	p := payloadFor(t, aliceCard, f.variants["alice"])
	s = f.g.Grade("bob.ipynb", fill(t, f.nb["bob"], goLiteral(aliceCard), p))
	if x, _ := s.Score(criteria.OwnVariantID); x.Status != "fail" {
		t.Errorf("copied output: own variant %s", x.Status)
	}
	if !hasFinding(s, integrity.FindOtherTrace) {
		t.Errorf("copied output: no %s finding: %+v", integrity.FindOtherTrace, s.Integrity)
	}

	// Carol hands in the worked example's numbers from the public trace.
	pub := correctCard(t, f.public)
	s = f.g.Grade("carol.ipynb", f.submitted(t, "carol", pub))
	if x, _ := s.Score(criteria.OwnVariantID); x.Status != "fail" || !strings.Contains(x.Detail, "公开") {
		t.Errorf("public numbers: %+v", x)
	}

	// Her own right card passes it.
	s = f.g.Grade("carol.ipynb", f.submitted(t, "carol", correctCard(t, f.variants["carol"])))
	if x, _ := s.Score(criteria.OwnVariantID); x.Status != "pass" {
		t.Errorf("own card: %+v", x)
	}
}

// The release keeps the notebook intact apart from the data path, the
// cleared outputs and the signed record.
func TestPersonalize(t *testing.T) {
	f := newFixture(t, "alice")
	nb, err := notebook.ParseNotebook(f.nb["alice"])
	if err != nil {
		t.Fatal(err)
	}
	a := nb.Assignment
	if a == nil || !a.Verify(testKey) || a.Learner != "alice" || len(a.Locked) == 0 {
		t.Fatalf("release record %+v", a)
	}
	if a.Verify([]byte("some-other-key-0123456789abcdef")) {
		t.Error("record verifies under another key")
	}
	roles := map[string]int{}
	for _, l := range a.Locked {
		roles[l.Role]++
	}
	if roles[notebook.RoleData] != 1 || roles[notebook.RoleSelfCheck] != 1 || roles["instructions"] < 5 {
		t.Errorf("locked roles %v", roles)
	}
	for _, c := range nb.Cells {
		if strings.Contains(c.Source, assign.ReleaseDataRef) {
			t.Errorf("cell %s still reads the public trace", c.ID)
		}
		if (c.Role == notebook.RoleData || c.Role == notebook.RoleSelfCheck) && !strings.Contains(c.Source, `"trace.jsonl"`) {
			t.Errorf("cell %s does not read the variant: %s", c.ID, c.Source)
		}
	}
	var raw map[string]json.RawMessage
	json.Unmarshal(f.nb["alice"], &raw)
	for _, k := range []string{"nbformat", "nbformat_minor", "metadata", "cells"} {
		if _, ok := raw[k]; !ok {
			t.Errorf("personalized notebook lost %s", k)
		}
	}
	if !strings.Contains(string(f.nb["alice"]), `"kernelspec"`) || strings.Contains(string(f.nb["alice"]), `\u003c`) {
		t.Error("kernelspec lost or markdown HTML-escaped")
	}
}

// A class released before the variants' conditions were Chinese is graded
// after the upgrade: its learners' self-checks recorded the sha256 of the
// legacy bytes, which are theirs, not another trace.
func TestLegacyVariantIsStillTheLearnersOwn(t *testing.T) {
	f := newFixture(t, "alice", "bob")
	legacy, err := assign.LegacyVariant(testKey, "alice")
	if err != nil {
		t.Fatal(err)
	}
	release, err := os.ReadFile(releasePath)
	if err != nil {
		t.Fatal(err)
	}
	nb, err := assign.Personalize(testKey, release, "alice", legacy)
	if err != nil {
		t.Fatal(err)
	}
	c := correctCard(t, legacy)
	s := f.g.Grade("alice.ipynb", fill(t, nb, goLiteral(c), payloadFor(t, c, legacy)))
	if hasFinding(s, integrity.FindOtherTrace) {
		t.Errorf("the legacy variant is taken for another trace: %+v", s.Integrity)
	}
	if x, _ := s.Score(criteria.OwnVariantID); x.Status != "pass" {
		t.Errorf("own variant: %+v", x)
	}
	// Bob's legacy bytes in Alice's self-check are still Bob's.
	bob, _ := assign.LegacyVariant(testKey, "bob")
	s = f.g.Grade("alice.ipynb", fill(t, nb, goLiteral(c), payloadFor(t, c, bob)))
	if !hasFinding(s, integrity.FindOtherTrace) {
		t.Errorf("bob's legacy trace in alice's self-check: no %s finding", integrity.FindOtherTrace)
	}
}
