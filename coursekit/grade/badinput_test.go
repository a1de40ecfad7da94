package grade

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/card"
	"github.com/llmperf-course/course/coursekit/grade/batch"
	"github.com/llmperf-course/course/coursekit/grade/grader"
	"github.com/llmperf-course/course/coursekit/grade/notebook"
	"github.com/llmperf-course/course/coursekit/grade/report"
	"github.com/llmperf-course/course/coursekit/grade/roster"
	"github.com/llmperf-course/course/coursekit/grade/secret"
)

// Every bad input is "ungradable, with reason", and the batch goes on.
func TestBadInputIsUngradableWithReason(t *testing.T) {
	f := newFixture(t, "alice", "bob")
	good := f.submitted(t, "alice", correctCard(t, f.variants["alice"]))
	payload := string(payloadFor(t, correctCard(t, f.variants["alice"]), f.variants["alice"]))
	withPayload := func(p string) []byte {
		return fill(t, f.nb["alice"], goLiteral(correctCard(t, f.variants["alice"])), []byte(p))
	}

	cases := []struct {
		name, file string
		data       []byte
		code       string
	}{
		{"empty", "alice.ipynb", nil, notebook.ReasonTruncated},
		{"truncated", "alice.ipynb", good[:len(good)/2], notebook.ReasonTruncated},
		{"invalid JSON", "alice.ipynb", []byte(`{"nbformat": 4, "cells": [,]}`), notebook.ReasonInvalidJSON},
		{"not a notebook", "alice.ipynb", []byte(`{"trace":"llm-serving/v1","clock":"client"}`), notebook.ReasonNotNotebook},
		{"a JSON array", "alice.ipynb", []byte(`[1,2,3]`), notebook.ReasonNotNotebook},
		{"nbformat 3", "alice.ipynb", []byte(`{"nbformat":3,"nbformat_minor":0,"metadata":{},"worksheets":[{"cells":[]}]}`), notebook.ReasonNBFormat},
		{"no card", "alice.ipynb", []byte(`{"nbformat":4,"nbformat_minor":5,"metadata":{},"cells":[{"cell_type":"markdown","id":"a","metadata":{},"source":"hi"}]}`), notebook.ReasonNoCard},
		{"self-check never run", "alice.ipynb", f.nb["alice"], notebook.ReasonSelfCheck},
		{"two card cells", "alice.ipynb", edit(t, good, func(_ map[string]any, cells []any) []any {
			c := cellByRole(cells, notebook.RoleCard)
			dup := map[string]any{"cell_type": "code", "id": "copy-of-card", "metadata": c["metadata"], "source": c["source"], "outputs": []any{}}
			return append(cells, dup)
		}), notebook.ReasonTwoCards},
		{"two different card outputs", "alice.ipynb", edit(t, good, func(_ map[string]any, cells []any) []any {
			other := payloadFor(t, mistakenCard(t, f.variants["alice"]), f.variants["alice"])
			sc := cellByRole(cells, notebook.RoleSelfCheck)
			sc["outputs"] = append(sc["outputs"].([]any), selfCheckOutput(other))
			return cells
		}), notebook.ReasonTwoCards},
		{"card of the wrong schema", "alice.ipynb", withPayload(strings.Replace(payload, card.PayloadSchema, "coursekit.card/v0", 1)), notebook.ReasonWrongCard},
		{"card in the old layout (v1)", "alice.ipynb", withPayload(strings.Replace(payload, card.PayloadSchema, "coursekit.card/v1", 1)), notebook.ReasonWrongCard},
		{"card field of the wrong type", "alice.ipynb", withPayload(strings.Replace(payload, `"attempts":10`, `"attempts":"ten"`, 1)), notebook.ReasonWrongCard},
		{"card is a string", "alice.ipynb", withPayload(`{"schema":"` + card.PayloadSchema + `","card":"myCard"}`), notebook.ReasonWrongCard},
		{"NaN", "alice.ipynb", withPayload(strings.Replace(payload, `"seconds":`, `"seconds":NaN,"x":`, 1)), notebook.ReasonNonFinite},
		{"Inf", "alice.ipynb", withPayload(strings.Replace(payload, `"attempts":10`, `"attempts":10,"window":{"seconds":1e999}`, 1)), notebook.ReasonNonFinite},
		{"unknown learner", "mallory.ipynb", edit(t, good, func(m map[string]any, cells []any) []any {
			delete(m["metadata"].(map[string]any), "coursekit")
			return cells
		}), notebook.ReasonUnknown},
		{"huge outputs", "alice.ipynb", edit(t, good, func(_ map[string]any, cells []any) []any {
			sc := cellByRole(cells, notebook.RoleSelfCheck)
			big := map[string]any{"output_type": "display_data", "metadata": map[string]any{}, "data": map[string]any{"text/html": strings.Repeat("<div>图</div>", notebook.DefaultMaxBytes/10)}}
			sc["outputs"] = append(sc["outputs"].([]any), big)
			return cells
		}), notebook.ReasonTooLarge},
	}
	if !strings.Contains(payload, `"attempts":10`) || !strings.Contains(payload, `"seconds":`) {
		t.Fatalf("test premise: payload layout changed: %.200s", payload)
	}
	dir := t.TempDir()
	var paths []string
	for i, c := range cases {
		s := f.g.Grade(c.file, c.data)
		if s.Gradable || s.ReasonCode != c.code {
			t.Errorf("%s: gradable %v, reason %s (%s), want %s", c.name, s.Gradable, s.ReasonCode, s.Reason, c.code)
		}
		if c.name == "card in the old layout (v1)" && (!strings.Contains(s.Reason, "旧版格式") || !strings.Contains(s.Reason, "SuccessSamples")) {
			t.Errorf("%s: the reason should name the old layout and where P95 and the failure rate go: %s", c.name, s.Reason)
		}
		if s.Reason == "" || !strings.ContainsFunc(s.Reason, func(r rune) bool { return r >= 0x4e00 && r <= 0x9fff }) {
			t.Errorf("%s: reason %q should tell the learner in Chinese", c.name, s.Reason)
		}
		p := filepath.Join(dir, string(rune('a'+i)), c.file)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, c.data, 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	// The batch: bad files among good ones; every file gets a result and
	// the good one is graded. A file that cannot be opened is one more.
	gp := filepath.Join(dir, "good", "bob.ipynb")
	os.MkdirAll(filepath.Dir(gp), 0o755)
	os.WriteFile(gp, f.submitted(t, "bob", correctCard(t, f.variants["bob"])), 0o644)
	paths = append(paths, gp, filepath.Join(dir, "missing", "alice.ipynb"))
	subs := f.g.GradeAll(paths, nil)
	if len(subs) != len(paths) {
		t.Fatalf("%d results for %d files", len(subs), len(paths))
	}
	if s := subs[len(subs)-2]; !s.Gradable || s.Learner != "bob" {
		t.Errorf("the good submission in a bad batch: %+v", s)
	}
	if s := subs[len(subs)-1]; s.Gradable || s.ReasonCode != notebook.ReasonUnreadable {
		t.Errorf("missing file: %+v", s)
	}
	b := batch.NewBatch(f.roster, nil, subs)
	if err := report.Write(b, filepath.Join(dir, "out")); err != nil {
		t.Fatalf("writing a batch with bad input: %v", err)
	}
}

// The byte cap is checked while reading: a huge file is never read whole.
func TestReadLimited(t *testing.T) {
	_, err := notebook.ReadLimited(strings.NewReader(strings.Repeat("x", 101)), 100)
	if u, ok := err.(*notebook.Ungradable); !ok || u.Code != notebook.ReasonTooLarge {
		t.Fatalf("got %v", err)
	}
	if b, err := notebook.ReadLimited(strings.NewReader("abc"), 100); err != nil || string(b) != "abc" {
		t.Fatalf("got %q, %v", b, err)
	}
}

// A missing or weak key is an error before anything is graded.
func TestKeyFile(t *testing.T) {
	dir := t.TempDir()
	if _, err := secret.LoadKey(filepath.Join(dir, "nope")); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("missing key: %v", err)
	}
	short := filepath.Join(dir, "short")
	os.WriteFile(short, []byte("abc\n"), 0o600)
	if _, err := secret.LoadKey(short); err == nil {
		t.Error("a 3-byte key was accepted")
	}
	good := filepath.Join(dir, "key")
	os.WriteFile(good, append(append([]byte{}, testKey...), '\n'), 0o600)
	if k, err := secret.LoadKey(good); err != nil || string(k) != string(testKey) {
		t.Errorf("key %q, %v", k, err)
	}
	if _, err := grader.NewGrader(grader.Options{Roster: &roster.Roster{}}); err == nil {
		t.Error("a grader without a key")
	}
}

func TestRoster(t *testing.T) {
	r, err := roster.ReadRoster(strings.NewReader("\ufeffName,Student_ID,Email\n王小明,s001,a@example.org\n李雷,s002,\n\n"))
	if err != nil || len(r.Learners) != 2 || r.Learners[0].ID != "s001" || r.Learners[0].Name != "王小明" || !r.Has("s002") {
		t.Fatalf("%+v, %v", r, err)
	}
	for _, bad := range []string{"", "name\nx\n", "id\n../etc\n", "id\na\na\n", "id\n"} {
		if _, err := roster.ReadRoster(strings.NewReader(bad)); err == nil {
			t.Errorf("roster %q accepted", bad)
		}
	}
}

// A header with two columns equal but for case (the reader matches its
// own in any case, and the last one would win), and ids equal but for
// case (they name folders, which macOS and Windows match in any case),
// are refused with where and both names.
func TestRosterCaseTwins(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"id,ID\ns1,s2\n", `roster:1: columns "id" (column 1) and "ID" (column 2) differ only in case`},
		{"id,id\ns1,s2\n", `roster:1: column "id" appears twice (columns 1 and 2)`},
		{"id,lms_id,LMS_ID\ns1,1,2\n", `"lms_id" (column 2) and "LMS_ID" (column 3)`},
		{"id\ns1\nS1\n", `roster:3: learner id "S1" differs from "s1" (line 2) only in case`},
	} {
		if _, err := roster.ReadRoster(strings.NewReader(c.in)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want …%s…", c.in, err, c.want)
		}
	}
}
