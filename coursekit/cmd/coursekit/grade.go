package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/llmperf-course/course/coursekit"
	"github.com/llmperf-course/course/coursekit/grade"
)

// cmdAssign releases the deliverable: per learner, their variant trace and
// their signed copy of the notebook.
//
//	coursekit assign --roster roster.csv --key-file KEY --out DIR [--notebook 06-deliverable.ipynb]
func cmdAssign(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("assign", flag.ContinueOnError)
	rosterPath := fs.String("roster", "", "roster CSV with a header and an id column")
	keyFile := fs.String("key-file", "", "the instructor's secret key file (keep it for grading)")
	out := fs.String("out", "", "output directory: one folder per learner")
	nbPath := fs.String("notebook", filepath.Join("notebooks", "unit01", "06-deliverable.ipynb"), "the deliverable notebook to release")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("assign: unexpected arguments %q", pos)
	}
	if *rosterPath == "" || *keyFile == "" || *out == "" {
		return usagef("assign: --roster, --key-file and --out are required")
	}
	key, err := grade.LoadKey(*keyFile)
	if err != nil {
		return usagef("assign: %v", err)
	}
	roster, err := grade.ReadRosterFile(*rosterPath)
	if err != nil {
		return usagef("assign: %v", err)
	}
	release, err := os.ReadFile(*nbPath)
	if err != nil {
		return err
	}
	as, err := grade.Assign(key, roster, release, filepath.Base(*nbPath), *out)
	if err != nil {
		return usagef("assign: %v", err)
	}
	for _, a := range as {
		fmt.Fprintf(stdout, "%s\t%s\t%s\n", a.Learner, a.Notebook, a.Trace)
	}
	fmt.Fprintf(stdout, "assigned %d learners into %s\n", len(as), *out)
	return nil
}

// cmdGrade grades submitted notebooks without running them.
//
//	coursekit grade --key-file KEY --roster roster.csv --out DIR SUBMISSION|DIR...
func cmdGrade(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("grade", flag.ContinueOnError)
	rosterPath := fs.String("roster", "", "roster CSV with a header and an id column")
	keyFile := fs.String("key-file", "", "the key used by assign")
	out := fs.String("out", "", "output directory for grades.csv, results/, feedback/ and the summary")
	maxBytes := fs.Int64("max-bytes", grade.DefaultMaxBytes, "read at most this many bytes of one submission")
	public := fs.String("public-trace", "", "the unit's public trace, to spot cards copied from the worked example (default: the course data)")
	quiet := fs.Bool("quiet", false, "no progress lines on stderr")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if *rosterPath == "" || *keyFile == "" || *out == "" {
		return usagef("grade: --key-file, --roster and --out are required")
	}
	if len(pos) == 0 {
		return usagef("grade: give submission notebooks or a directory of them")
	}
	// Everything that can stop the batch is checked before grading starts.
	key, err := grade.LoadKey(*keyFile)
	if err != nil {
		return usagef("grade: %v", err)
	}
	roster, err := grade.ReadRosterFile(*rosterPath)
	if err != nil {
		return usagef("grade: %v", err)
	}
	paths, err := submissions(pos)
	if err != nil {
		return err
	}
	if len(paths) == 0 {
		return usagef("grade: no .ipynb files in %s", strings.Join(pos, " "))
	}
	var pub []byte
	if *public == "" {
		if b, err := os.ReadFile(coursekit.Data("unit01/trace.jsonl")); err == nil {
			pub = b
		}
	} else if pub, err = os.ReadFile(*public); err != nil {
		return err
	}
	g, err := grade.NewGrader(grade.Options{Key: key, Roster: roster, MaxBytes: *maxBytes, Public: pub})
	if err != nil {
		return usagef("grade: %v", err)
	}
	if err := g.Prepare(); err != nil {
		return fmt.Errorf("grade: %w", err)
	}
	var progress io.Writer = stderr
	if *quiet {
		progress = nil
	}
	subs := g.GradeAll(paths, progress)
	b := grade.NewBatch(roster, g.Points(), subs)
	if err := b.Write(*out); err != nil {
		return err
	}
	sm := b.Summarize()
	fmt.Fprintf(stdout, "graded %d submissions: %d gradable, %d ungradable; %d of %d learners did not submit; %d answers wait for manual review\n",
		sm.Submitted, sm.Gradable, sm.Ungradable, sm.Missing, sm.Learners, len(sm.Manual))
	fmt.Fprintf(stdout, "wrote %s\n", filepath.Join(*out, "grades.csv"))
	return nil
}

// submissions expands directories into the .ipynb files under them,
// skipping Jupyter checkpoints and hidden folders, in a stable order.
func submissions(pos []string) ([]string, error) {
	var paths []string
	for _, p := range pos {
		st, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if !st.IsDir() {
			paths = append(paths, p)
			continue
		}
		var found []string
		err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && path != p && (strings.HasPrefix(d.Name(), ".") || d.Name() == ".ipynb_checkpoints") {
				return filepath.SkipDir
			}
			if !d.IsDir() && strings.EqualFold(filepath.Ext(path), ".ipynb") {
				found = append(found, path)
			}
			return nil
		})
		if err != nil && !errors.Is(err, fs.SkipDir) {
			return nil, err
		}
		sort.Strings(found)
		paths = append(paths, found...)
	}
	return paths, nil
}
