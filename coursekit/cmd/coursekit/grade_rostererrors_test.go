package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A roster with several bad rows names every one, each as FILE:LINE with
// the file as given (not "roster:4", one at a time); nothing is written.
func TestGradeCLIRosterErrorsNameEveryLine(t *testing.T) {
	dir := t.TempDir()
	roster := filepath.Join(dir, "class roster.csv")
	os.WriteFile(roster, []byte("id,name,lms_id\ns01,A,1001\ns 02,B,1002\ns03,C,10x3\ns01,D,1004\ns05,E,1001\n"), 0o644)
	key := filepath.Join(dir, "KEY")
	os.WriteFile(key, []byte("cli-test-key-0123456789abcdef\n"), 0o600)
	nb := filepath.Join(dir, "s01.ipynb")
	os.WriteFile(nb, []byte("{}"), 0o644)
	out := filepath.Join(dir, "graded")
	code, o, e := runCLI(t, "grade", "--key-file", key, "--roster", roster, "--out", out, nb)
	for _, w := range []string{roster + `:3: learner id "s 02"`, roster + `:4: lms_id "10x3"`, roster + `:5: learner id "s01" appears twice (first on line 2)`, roster + `:6: lms_id "1001" is also learner "s01"'s (line 2)`} {
		if !strings.Contains(e, w) {
			t.Errorf("exit %d, stderr lacks %q:\n%s%s", code, w, o, e)
		}
	}
	if _, err := os.Stat(out); code != 2 || err == nil {
		t.Errorf("exit %d; wrote %s: %v", code, out, err)
	}
}

// Every bad row in one pass: a row whose id differs from another only in
// case still has its lms_id checked (a duplicate lms_id is named beside
// the case error), and a weights file names a criterion given twice
// even when one of its lines also has bad points.
func TestGradeCLIEveryBadRowInOnePass(t *testing.T) {
	dir := t.TempDir()
	key := filepath.Join(dir, "KEY")
	os.WriteFile(key, []byte("cli-test-key-0123456789abcdef\n"), 0o600)
	nb := filepath.Join(dir, "s01.ipynb")
	os.WriteFile(nb, []byte("{}"), 0o644)
	out := filepath.Join(dir, "graded")
	roster := filepath.Join(dir, "roster.csv")
	os.WriteFile(roster, []byte("id,lms_id\ns01,1001\nS01,1001\ns03,1003\n"), 0o644)
	for run := 1; run <= 2; run++ {
		code, o, e := runCLI(t, "grade", "--key-file", key, "--roster", roster, "--out", out, nb)
		for _, w := range []string{roster + `:3: learner id "S01" differs from "s01"`, roster + `:3: lms_id "1001" is also learner "s01"'s (line 2)`} {
			if !strings.Contains(e, w) {
				t.Errorf("run %d: exit %d, stderr lacks %q:\n%s%s", run, code, w, o, e)
			}
		}
	}
	os.WriteFile(roster, []byte("id\ns01\n"), 0o644)
	weights := filepath.Join(dir, "weights.csv")
	os.WriteFile(weights, []byte("criterion,points\nfigures.p95,2\nfigures.p95,x\nfigures.cost,-1\nfigures.cost,2\n"), 0o644)
	for run := 1; run <= 2; run++ {
		code, o, e := runCLI(t, "grade", "--key-file", key, "--roster", roster, "--weights", weights, "--out", out, nb)
		for _, w := range []string{weights + `:3: figures.p95 is given twice (first on line 2)`, weights + `:3: points "x"`, weights + `:4: points "-1"`, weights + `:5: figures.cost is given twice (first on line 4)`} {
			if !strings.Contains(e, w) {
				t.Errorf("run %d: exit %d, stderr lacks %q:\n%s%s", run, code, w, o, e)
			}
		}
		if _, err := os.Stat(out); code != 2 || err == nil {
			t.Errorf("run %d: exit %d; wrote %s: %v", run, code, out, err)
		}
	}
}
