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
