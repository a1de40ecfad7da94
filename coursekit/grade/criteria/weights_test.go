package criteria

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// A weights file overrides the points it names; the rest keep theirs.
// CSV and TSV, a header, comments and blank lines all read.
func TestReadWeights(t *testing.T) {
	for _, in := range []string{
		"criterion,points\n# one < for ≤ costs less\nfigures.qualified,0.5\n\nfigures.goodput, 0\n",
		"criterion\tpoints\nfigures.qualified\t0.5\nfigures.goodput\t0\n",
		"\ufefffigures.qualified,0.5\r\nfigures.goodput,0\r\n",
	} {
		p, err := ReadWeights(strings.NewReader(in), "w.csv")
		if err != nil {
			t.Fatalf("%q: %v", in, err)
		}
		def := DefaultPoints()
		if p["figures.qualified"] != 0.5 || p["figures.goodput"] != 0 || p["figures.cost"] != def["figures.cost"] || len(p) != len(def) {
			t.Errorf("%q: %v", in, p)
		}
	}
}

// Every bad line is named by FILE:LINE, all of them at once.
func TestReadWeightsErrors(t *testing.T) {
	in := "criterion,points\nfigures.qualifed,1\nfigures.cost,two\nfigures.cost,-1\nfigures.p95,NaN\nfigures.p95,1\nfigures.p95,2\nmap.steps\n"
	_, err := ReadWeights(strings.NewReader(in), "w.csv")
	if err == nil {
		t.Fatal("no error")
	}
	// Each part names FILE:LINE; the error adds no prefix of its own, which
	// grade's "--weights:" would double ("--weights: weights: w.csv:2").
	if !strings.HasPrefix(err.Error(), "w.csv:") {
		t.Errorf("error starts %q, want the file's name", err)
	}
	for _, want := range []string{
		`w.csv:2: unknown criterion id "figures.qualifed"`,
		`w.csv:3: points "two" for figures.cost`,
		`w.csv:4: points "-1" for figures.cost`,
		`w.csv:5: points "NaN" for figures.p95`,
		`w.csv:4: figures.cost is given twice (first on line 3)`,
		`w.csv:6: figures.p95 is given twice (first on line 5)`,
		`w.csv:7: figures.p95 is given twice (first on line 5)`,
		`w.csv:8: want a criterion id and its points`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
	if _, err := ReadWeights(strings.NewReader("# nothing\n"), "w.csv"); err == nil || !strings.Contains(err.Error(), "w.csv: no criterion weights") {
		t.Errorf("empty file: %v", err)
	}
}

// Points are plain decimals, as typed scores are: Go's number syntaxes
// that a spreadsheet does not read as that number ("3_0" is 30 to
// strconv, "0x1p0" is 1, "1e0" is 1, "Inf" infinite) are refused at
// FILE:LINE; the decimals a person types are read.
func TestReadWeightsPlainDecimalsOnly(t *testing.T) {
	for _, num := range []string{"3_0", "0x1p0", "0X1P0", "1e0", "1E1", "Inf", "+Inf", "infinity", "NaN", "0b1", "1_000.5", "٣"} {
		_, err := ReadWeights(strings.NewReader("criterion,points\nfigures.cost,"+num+"\n"), "w.csv")
		if err == nil || !strings.Contains(err.Error(), `w.csv:2: points "`+num+`" for figures.cost: want a plain decimal number ≥ 0`) {
			t.Errorf("points %q: err = %v, want a FILE:LINE refusal", num, err)
		}
	}
	for num, want := range map[string]float64{"3": 3, "1.5": 1.5, ".5": 0.5, "2.": 2, "0": 0, "+1": 1, "-0": 0, "10.25": 10.25} {
		p, err := ReadWeights(strings.NewReader("figures.cost,"+num+"\n"), "w.csv")
		if err != nil || p["figures.cost"] != want {
			t.Errorf("points %q: %v, %v; want %v", num, p["figures.cost"], err, want)
		}
	}
}

// The printed defaults read back as the defaults.
func TestWriteWeightsRoundTrip(t *testing.T) {
	var b bytes.Buffer
	if err := WriteWeights(&b, DefaultPoints()); err != nil {
		t.Fatal(err)
	}
	p, err := ReadWeights(&b, "defaults.csv")
	if err != nil {
		t.Fatal(err)
	}
	def := DefaultPoints()
	for id, v := range def {
		if p[id] != v {
			t.Errorf("%s: %v, want %v", id, p[id], v)
		}
	}
	if p[ExecutionID] != DefaultExecutionPoints {
		t.Errorf("execution: %v", p[ExecutionID])
	}
}

// docs/instructors.md's default weights table is the code's.
func TestWeightsDocumented(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "..", "docs", "instructors.md"))
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile("(?m)^\\| `([a-z0-9_.]+)` \\| ([0-9.]+) \\|$")
	doc := map[string]string{}
	for _, m := range row.FindAllStringSubmatch(string(b), -1) {
		doc[m[1]] = m[2]
	}
	var want bytes.Buffer
	WriteWeights(&want, DefaultPoints())
	lines := strings.Split(strings.TrimSpace(want.String()), "\n")[1:]
	for _, l := range lines {
		id, pts, _ := strings.Cut(l, ",")
		if doc[id] != pts {
			t.Errorf("docs/instructors.md: %s is %q, the code says %s", id, doc[id], pts)
		}
	}
	if len(doc) != len(lines) {
		t.Errorf("docs/instructors.md lists %d weights, the code has %d", len(doc), len(lines))
	}
}
