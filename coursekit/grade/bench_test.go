package grade

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkGrade1000 grades 1,000 generated submissions (60 % right, 25 %
// with the typical mistakes, 15 % broken) from disk, as `coursekit grade`
// does, and writes every output. One op is the whole batch; run it with
// `go test -run '^$' -bench Grade1000 -benchtime 1x ./coursekit/grade/`
// (GRADE_BENCH_N=200 for a smaller class). It is a benchmark, not a timed
// test: the figure depends on the machine.
func BenchmarkGrade1000(b *testing.B) {
	n := 1000
	if s := os.Getenv("GRADE_BENCH_N"); s != "" {
		fmt.Sscan(s, &n)
	}
	ids := make([]string, n)
	for i := range ids {
		ids[i] = fmt.Sprintf("s%04d", i)
	}
	f := newFixture(b, ids...)
	dir := b.TempDir()
	var paths []string
	for i, id := range ids {
		var nb []byte
		switch {
		case i%20 < 12:
			nb = f.submitted(b, id, correctCard(b, f.variants[id]))
		case i%20 < 17:
			nb = f.submitted(b, id, mistakenCard(b, f.variants[id]))
		case i%20 == 17:
			nb = f.nb[id] // self-check never run
		case i%20 == 18:
			good := f.submitted(b, id, correctCard(b, f.variants[id]))
			nb = good[:len(good)/2]
		default:
			nb = []byte(`{"nbformat":3,"worksheets":[]}`)
		}
		p := filepath.Join(dir, "in", id+".ipynb")
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, nb, 0o644); err != nil {
			b.Fatal(err)
		}
		paths = append(paths, p)
	}
	b.ResetTimer()
	for b.Loop() {
		g, err := NewGrader(Options{Key: testKey, Roster: f.roster, Public: f.public})
		if err != nil {
			b.Fatal(err)
		}
		subs := g.GradeAll(paths, nil)
		if err := NewBatch(f.roster, nil, subs).Write(filepath.Join(dir, "out")); err != nil {
			b.Fatal(err)
		}
	}
}
