package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	course "github.com/llmperf-course/course"
	"github.com/llmperf-course/course/coursekit"
	"github.com/llmperf-course/course/coursekit/grade/assign"
	"github.com/llmperf-course/course/coursekit/grade/batch"
	"github.com/llmperf-course/course/coursekit/grade/criteria"
	"github.com/llmperf-course/course/coursekit/grade/execute"
	"github.com/llmperf-course/course/coursekit/grade/grader"
	"github.com/llmperf-course/course/coursekit/grade/gradescope"
	"github.com/llmperf-course/course/coursekit/grade/notebook"
	"github.com/llmperf-course/course/coursekit/grade/report"
	"github.com/llmperf-course/course/coursekit/grade/review"
	"github.com/llmperf-course/course/coursekit/grade/roster"
	"github.com/llmperf-course/course/coursekit/grade/secret"
	"github.com/llmperf-course/course/coursekit/internal/csvtext"
)

// cmdAssign releases the deliverable: per learner, their variant trace and
// their signed copy of the notebook.
//
//	coursekit assign --roster roster.csv --key-file KEY --out DIR [--notebook 06-deliverable.ipynb]
//
// Without --notebook it releases the deliverable built into the binary.
func cmdAssign(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("assign", flag.ContinueOnError)
	rosterPath := fs.String("roster", "", "roster CSV with a header and an id column (required)")
	keyFile := fs.String("key-file", "", "the instructor's secret key file, kept for grading (required)")
	out := fs.String("out", "", "output directory: one folder per learner (required)")
	force := fs.Bool("force", false, "write over a release made with another key (default: refuse)")
	nbPath := fs.String("notebook", "", "the deliverable notebook to release (default: unit 01's "+course.DeliverableName+" as built into coursekit, so assign works from any directory)")
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
	key, err := secret.LoadKey(*keyFile)
	if err != nil {
		return setupf("assign: %v", err)
	}
	roster, err := roster.ReadRosterFile(*rosterPath)
	if err != nil {
		return setupf("assign: %v", err)
	}
	// The roster is a CSV the instructor edits: not UTF-8 is said as grade says it.
	for _, w := range encNote(nil, roster.Path, roster.Encoding) {
		fmt.Fprintf(stderr, "assign: warning: %s\n", w.Text)
	}
	release, name, err := releaseNotebook(*nbPath)
	if err != nil {
		return err
	}
	if !*force {
		if err := assign.CheckRelease(key, roster, name, *out); err != nil {
			return setupf("assign: %v", err)
		}
	}
	as, err := assign.Assign(key, roster, release, name, *out)
	if err != nil {
		return setupf("assign: %v", err)
	}
	for _, a := range as {
		fmt.Fprintf(stdout, "%s\t%s\t%s\n", a.Learner, a.Notebook, a.Trace)
	}
	fmt.Fprintf(stdout, "assigned %s into %s\n", nouns(len(as), "learner", "learners"), *out)
	return nil
}

// cmdKey makes the instructor's key.
//
//	coursekit key new FILE
//
// It refuses to overwrite an existing file.
func cmdKey(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("key", flag.ContinueOnError)
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 2 || pos[0] != "new" {
		return usagef("key: want: key new FILE")
	}
	if err := secret.NewKeyFile(pos[1]); err != nil {
		return setupf("key: %v", err)
	}
	fmt.Fprintf(stdout, "wrote a new key to %s (mode 0600): keep it for grading, never hand it out\n", pos[1])
	return nil
}

// releaseNotebook is the notebook at path, or with path "" the deliverable
// built into the binary (found relative to the module at build time, not
// to the working directory).
func releaseNotebook(path string) (data []byte, name string, err error) {
	if path == "" {
		return course.Deliverable, course.DeliverableName, nil
	}
	data, err = readInput(path, "a deliverable notebook", notebookLimit)
	return data, filepath.Base(path), err
}

// cmdGrade grades submitted notebooks without running them.
//
//	coursekit grade --key-file KEY --roster roster.csv --out DIR [--manual manual-review.csv] SUBMISSION.ipynb|DIR|LMS.zip...
//	coursekit grade --gradescope /autograder [--key-file KEY] [--roster roster.csv]
//
// It grades a class as flags → options → run, as vegeta's attack
// command parses its flags into options for attack: gradeFlagsOf reads the
// command line, gradeFlags.options checks everything that can stop the
// batch before any submission is read (key, roster, OUT's previous run,
// weights, typed scores), and runGrade reads the submissions, picks whose
// they are and which count, and builds OUT.
func cmdGrade(args []string, stdout, stderr io.Writer) error {
	fl, err := gradeFlagsOf(args)
	if err != nil {
		return err
	}
	if fl.printWeights {
		return criteria.WriteWeights(stdout, criteria.DefaultPoints())
	}
	if fl.gsRoot != "" {
		if len(fl.pos) > 0 || fl.out != "" || fl.manual != "" || *fl.exec.on || fl.weights != "" || len(fl.exports) > 0 {
			return usagef("grade: --gradescope grades ROOT/submission into ROOT/results: no --out, --manual, --execute, --weights, --export or submission arguments")
		}
		return gradeGradescope(fl.gsRoot, fl.keyFile, fl.rosterPath, fl.public, fl.maxBytes, stdout)
	}
	opts, err := fl.options(stderr)
	if err != nil {
		return err
	}
	return runGrade(opts, stdout, stderr)
}

// gradeFlags are grade's flags as given (fs keeps them, for the command
// that grades the whole class), and its submissions.
type gradeFlags struct {
	fs                                                                   *flag.FlagSet
	pos                                                                  []string
	rosterPath, keyFile, out, public, manual, gsRoot, weights, lmsColumn string
	maxBytes                                                             int64
	force, replace, changeWeights, quiet, noKeyCheck, printWeights       bool
	exports                                                              exportFlag
	exec                                                                 *execFlags
}

// gradeFlagsOf parses grade's command line.
func gradeFlagsOf(args []string) (*gradeFlags, error) {
	fs := flag.NewFlagSet("grade", flag.ContinueOnError)
	fl := &gradeFlags{fs: fs}
	fs.StringVar(&fl.rosterPath, "roster", "", "roster CSV with a header and an id column (optional lms_id column for LMS download names)")
	fs.StringVar(&fl.keyFile, "key-file", "", "the key file used by assign (required, except with --gradescope: default ROOT/source/course.key)")
	fs.StringVar(&fl.out, "out", "", "output directory for grades.csv, results/, feedback/ and the summary (required)")
	fs.Int64Var(&fl.maxBytes, "max-bytes", notebook.DefaultMaxBytes, "read at most this many bytes of one submission (or zip entry)")
	fs.StringVar(&fl.public, "public-trace", "", "the unit's public trace, to spot cards copied from the worked example (default: the course data)")
	fs.StringVar(&fl.manual, "manual", "", "a filled-in "+review.ManualFile+" to merge the scores a person typed (default: OUT/"+review.ManualFile+" when OUT holds one: typed scores are carried forward)")
	fs.BoolVar(&fl.force, "force", false, "with --manual FILE: discard the typed scores in OUT/"+review.ManualFile+"; they stay in the backup OUT.bak-N (default: refuse)")
	fs.BoolVar(&fl.replace, "replace", false, "grade only the given submissions although OUT holds a graded class with learners they do not cover: those learners become \"no submission\" (the previous run stays in the backup OUT.bak-N; default: refuse and print the command that grades the whole class)")
	fs.BoolVar(&fl.changeWeights, "change-weights", false, "grade with --weights (or, without it, the default weights) although OUT records other weights; typed manual scores are rescaled to the new maxima (default: keep the recorded weights)")
	fs.StringVar(&fl.gsRoot, "gradescope", "", "run as a Gradescope autograder under this root (e.g. /autograder): grade ROOT/submission, write ROOT/results/results.json (default: off)")
	fs.BoolVar(&fl.quiet, "quiet", false, "no progress lines on stderr")
	fs.BoolVar(&fl.noKeyCheck, "no-key-check", false, "grade even when the key verifies none of the release records (e.g. one tampered notebook graded alone); every record that fails is still a finding")
	fs.StringVar(&fl.weights, "weights", "", "a CSV or TSV of criterion id,points overriding the default points (criteria it does not name keep theirs; default: none)")
	fs.BoolVar(&fl.printWeights, "print-weights", false, "print the default weights as a CSV to start a --weights file from, and exit")
	fs.Var(&fl.exports, "export", "also write the totals as an LMS gradebook import file, FORMAT=FILE.csv with FORMAT "+strings.Join(report.ExportFormats, " or ")+" (repeatable; default: none)")
	fs.StringVar(&fl.lmsColumn, "lms-column", report.DefaultLMSColumn, "with --export: the grade column's name in the LMS (Canvas: \"Name (assignment id)\" as Canvas's own export names it)")
	fl.exec = addExecFlags(fs)
	pos, err := parse(fs, args)
	if err != nil {
		return nil, err
	}
	fl.pos = pos
	return fl, nil
}

// gradeOptions are a batch to grade, everything that can stop it checked.
type gradeOptions struct {
	fl      *gradeFlags
	roster  *roster.Roster
	prev    *report.Run // OUT's previous run, nil for none
	grader  *grader.Grader
	scores  *review.ManualScores // the typed scores merged, nil for none
	carried bool                 // scores are OUT's own, carried forward
	// overrides are the instructor's OUT/overrides.csv (never written by
	// grade), nil for none.
	overrides *review.Overrides
	// discarded counts the typed scores of OUT's own file that --force set
	// aside; ownManual is that file.
	discarded int
	ownManual string
	// encNotes are the files the instructor edited that were not UTF-8
	// (decoded from GB18030): a warning each, naming the file.
	encNotes []grader.Warning
	// typed are the files the instructor typed into, in the order read
	// (their rows' learners are checked once the batch is read): each a
	// file read, or its *review.BadRows when rows of it are bad.
	typed []learnerCheck
}

// learnerCheck is a file the instructor typed into, whose rows name
// learners: nil error when each is known (see review.BadRows).
type learnerCheck interface {
	CheckLearners(known func(id string) bool) error
}

// badRows keeps err for pick when it is a file's bad rows (listed, with
// its unknown learners, once the batch is read), and reports whether it
// was.
func (o *gradeOptions) badRows(err error) bool {
	var br *review.BadRows
	if errors.As(err, &br) {
		o.typed = append(o.typed, br)
		return true
	}
	return false
}

// options checks, before grading starts, everything that can stop the
// batch: the required flags, the key, the roster, OUT and its previous
// run, the weights, the public trace and the typed scores.
func (fl *gradeFlags) options(stderr io.Writer) (*gradeOptions, error) {
	if fl.rosterPath == "" || fl.keyFile == "" || fl.out == "" {
		return nil, usagef("grade: --key-file, --roster and --out are required")
	}
	if len(fl.pos) == 0 {
		return nil, usagef("grade: give submission notebooks, directories or LMS .zip downloads")
	}
	key, err := secret.LoadKey(fl.keyFile)
	if err != nil {
		return nil, setupf("grade: %v", err)
	}
	o := &gradeOptions{fl: fl}
	if o.roster, err = roster.ReadRosterFile(fl.rosterPath); err != nil {
		return nil, setupf("grade: %v", err)
	}
	o.encNotes = encNote(o.encNotes, o.roster.Path, o.roster.Encoding)
	// OUT's run record: the weights, the class and the files of the
	// previous run.
	if err := report.CheckOut(fl.out); err != nil {
		return nil, setupf("grade: %v", err)
	}
	if o.prev, err = report.ReadRun(fl.out); err != nil {
		return nil, setupf("grade: %v", err)
	}
	points, err := o.pickWeights(stderr)
	if err != nil {
		return nil, err
	}
	pub, err := publicTrace(fl.public)
	if err != nil {
		return nil, err
	}
	if o.grader, err = grader.NewGrader(grader.Options{Key: key, Roster: o.roster, Points: points, MaxBytes: fl.maxBytes, Public: pub, KeepSource: *fl.exec.on}); err != nil {
		return nil, setupf("grade: %v", err)
	}
	if err := o.readScores(); err != nil {
		return nil, err
	}
	// The instructor's overrides, checked before anything is graded.
	o.overrides, err = review.ReadOverridesFile(filepath.Join(fl.out, review.OverridesFile), o.roster, o.grader.Points())
	switch {
	case o.badRows(err):
	case err != nil:
		return nil, setupf("grade: %v\nNothing was written: fix the file and grade again", err)
	case o.overrides != nil:
		o.typed = append(o.typed, o.overrides)
	}
	return o, nil
}

// encNote adds to notes the warning that the file name was decoded from
// enc (none for UTF-8).
func encNote(notes []grader.Warning, name, enc string) []grader.Warning {
	if en, zh := csvtext.Note(name, enc); en != "" {
		notes = append(notes, grader.Warning{Text: en, Zh: zh})
	}
	return notes
}

// pickWeights are the points to grade with (nil: the defaults): --weights,
// or the weights OUT's previous run records, unless --change-weights. A
// --weights file that was not UTF-8 adds its warning to o.encNotes.
func (o *gradeOptions) pickWeights(stderr io.Writer) (map[string]float64, error) {
	fl, prev := o.fl, o.prev
	var points map[string]float64 // nil: the default weights
	if fl.weights != "" {
		var enc string
		var err error
		if points, enc, err = criteria.ReadWeightsFile(fl.weights); err != nil {
			return nil, setupf("grade: --weights: %v", err)
		}
		o.encNotes = encNote(o.encNotes, fl.weights, enc)
	}
	if prev != nil && prev.Weights != nil {
		switch diff := report.DiffWeights(prev.Weights, points); {
		case len(diff) == 0:
		case fl.changeWeights:
			fmt.Fprintf(stderr, "grade: note: changing the weights %s recorded: %s (typed manual scores are rescaled to the new maxima)\n", fl.out, report.JoinChanges(diff))
		case fl.weights != "":
			return nil, setupf("grade: the weights in %s differ from those %s was graded with: %s. Nothing was written. Give --change-weights to re-grade with the new ones (typed manual scores are rescaled), or leave out --weights to keep the recorded ones", fl.weights, fl.out, report.JoinChanges(diff))
		default:
			points = maps.Clone(prev.Weights)
			fmt.Fprintf(stderr, "grade: note: grading with the weights %s records from its previous run (differs from the defaults: %s); --change-weights without --weights returns to the defaults\n", fl.out, report.JoinChanges(report.DiffWeights(nil, points)))
		}
	}
	if points != nil && !*fl.exec.on {
		delete(points, criteria.ExecutionID) // its weight applies with --execute only
	}
	return points, nil
}

// readScores reads the typed scores. Nothing a person typed is lost: OUT's
// own manual-review file is read back (carried forward) unless --manual
// names another one, which is refused while OUT's holds typed scores.
func (o *gradeOptions) readScores() error {
	fl := o.fl
	if fl.manual != "" {
		if _, err := os.Stat(fl.manual); errors.Is(err, os.ErrNotExist) {
			return setupf("grade: --manual %s: file not found. Nothing was written", fl.manual)
		}
	}
	o.ownManual = filepath.Join(fl.out, review.ManualFile)
	var prevWeights map[string]float64 // the weights typed scores were typed against
	if o.prev != nil {
		prevWeights = o.prev.Weights
	}
	var own *review.ManualScores
	if _, err := os.Lstat(o.ownManual); err == nil {
		if own, err = review.ReadOutManualFileWas(o.ownManual, o.roster, o.grader.Points(), prevWeights); err != nil && !o.badRows(err) {
			return setupf("grade: %v (the scores typed there are carried forward: fix the file, or move it away)", err)
		}
	}
	o.carried = fl.manual == ""
	switch {
	case fl.manual == "" || sameFile(fl.manual, o.ownManual):
		o.scores = own
		fl.manual = o.ownManual
	default:
		if own != nil && len(own.Rows)+len(own.Kept) > 0 && !fl.force {
			return setupf("grade: %s holds %d typed scores that --manual %s would replace: merge them into %s, or give --manual %s, or --force to discard them", o.ownManual, len(own.Rows)+len(own.Kept), fl.manual, fl.manual, o.ownManual)
		}
		var err error
		if o.scores, err = review.ReadManualFileWas(fl.manual, o.roster, o.grader.Points(), prevWeights); err != nil && !o.badRows(err) {
			return setupf("grade: --manual: %v", err)
		}
		if own != nil {
			o.discarded = len(own.Rows) + len(own.Kept)
		}
	}
	if o.scores != nil {
		o.typed = append(o.typed, o.scores)
	}
	return nil
}

// runGrade grades the batch: read the submissions, pick (grade each, check
// the key, check the whole class is covered), build OUT in a staging
// folder that replaces it as a whole, then say what was done.
func runGrade(o *gradeOptions, stdout, stderr io.Writer) error {
	fl, g := o.fl, o.grader
	col, err := grader.Collect(fl.pos)
	if err != nil {
		return err
	}
	defer col.Close()
	if len(col.Inputs) == 0 {
		return setupf("grade: no .ipynb files in %s", strings.Join(fl.pos, " "))
	}
	if err := g.Prepare(); err != nil {
		return fmt.Errorf("grade: %w", err)
	}
	// Everything is written into a staging folder that replaces OUT as a
	// whole at the end: no file of an earlier run survives, and a run that
	// fails leaves OUT as it was.
	stage, err := report.NewStage(fl.out)
	if err != nil {
		return setupf("grade: %v", err)
	}
	committed := false
	defer func() {
		if !committed {
			stage.Abort()
		}
	}()
	execOpts, _, err := fl.exec.prepare(stage.Dir)
	if err != nil {
		return err
	}
	var progress io.Writer = stderr
	if fl.quiet {
		progress = nil
	}
	subs, err := o.pick(col, progress, stderr)
	if err != nil {
		return err
	}
	b, manualWarnings, err := o.build(subs, col, execOpts, progress, stdout, stderr)
	if err != nil {
		return err
	}
	files, err := report.WriteFiles(b, stage.Dir)
	if err != nil {
		return err
	}
	run := &report.Run{Weights: g.Points(), Files: files}
	for _, p := range fl.pos {
		if abs, err := filepath.Abs(p); err == nil {
			run.Inputs = append(run.Inputs, abs)
		}
	}
	run.Learners = slices.Sorted(maps.Keys(b.Chosen))
	if err := report.WriteRun(stage.Dir, run); err != nil {
		return err
	}
	for _, n := range stage.Notes {
		fmt.Fprintf(stderr, "grade: note: %s\n", n)
	}
	done, err := stage.Commit(o.prev)
	if err != nil {
		return fmt.Errorf("grade: replacing %s: %w", fl.out, err)
	}
	committed = true
	return o.said(b, done, manualWarnings, stdout, stderr)
}

// pick grades every input and picks whose work each is, then checks the
// key, that the batch covers the class OUT holds, and the rows of the
// files the instructor typed into. Progress lines wait for these checks:
// no score line is printed for a batch that one of them stops.
func (o *gradeOptions) pick(col *grader.Collection, progress, stderr io.Writer) ([]*grader.Submission, error) {
	fl := o.fl
	var held bytes.Buffer
	var hold io.Writer
	if progress != nil {
		hold = &held
	}
	subs := o.grader.GradeInputs(col.Inputs, hold)
	// The key check, before anything is run or written: the wrong key
	// would tell every learner their release record was edited.
	kc := batch.CheckKey(subs)
	if kc.Stop() && !fl.noKeyCheck {
		return nil, setupf("grade: the key in %s verifies 0 of %d release records: it is not the key assign used for these notebooks. Nothing was written. (Give the right --key-file; --no-key-check grades anyway.)", fl.keyFile, kc.Records)
	}
	// A partial run never blanks the class graded into OUT.
	if o.prev != nil && !fl.replace {
		if err := checkWholeClass(o.prev, o.roster, subs, fl.pos, fl.fs, fl.out); err != nil {
			return nil, err
		}
	}
	// A bad typed row, or one whose learner nobody knows (a mistyped
	// id), stops the run before anything is written: every such row of
	// every file, listed together.
	known := knownLearners(o.prev, o.roster, subs)
	var errs []error
	for _, f := range o.typed {
		errs = append(errs, f.CheckLearners(known))
	}
	if err := errors.Join(errs...); err != nil {
		return nil, setupf("grade: %v\nNothing was written, and every row stays in its file as you typed it: correct these rows (a learner id: as in the roster's id column) and grade again", err)
	}
	if progress != nil {
		progress.Write(held.Bytes())
	}
	if kc.Loud() {
		fmt.Fprintf(stderr, "grade: WARNING: %s\n", kc.Warning().Text)
	}
	return subs, nil
}

// build runs --execute, merges the typed scores and builds the batch with
// its warnings, printed as they stand.
func (o *gradeOptions) build(subs []*grader.Submission, col *grader.Collection, execOpts *execute.ExecOptions, progress, stdout, stderr io.Writer) (*batch.Batch, []grader.Warning, error) {
	warnings := append(append([]grader.Warning(nil), o.encNotes...), col.Notes...)
	if execOpts != nil {
		notes, err := o.fl.exec.run(o.grader, subs, execOpts, progress, stdout)
		if err != nil {
			return nil, nil, err
		}
		warnings = append(warnings, notes...)
	}
	b := batch.NewBatch(o.roster, o.grader.Points(), subs) // adds the duplicate-rule warnings
	// Typed scores go to the file that counts for each learner.
	manualWarnings := review.ApplyManualCounted(subs, b.Counts, o.scores)
	warnings = append(warnings, manualWarnings...)
	warnings = append(warnings, review.ApplyOverrides(subs, b.Counts, o.overrides)...)
	if o.prev != nil {
		warnings = append(warnings, o.overrides.WeightNotes(o.prev.Weights)...)
	}
	b.Warnings = append(warnings, b.Warnings...)
	b.Typed = o.scores
	for _, w := range b.Warnings {
		head, details := grader.Lines(w.Text)
		fmt.Fprintf(stderr, "grade: warning: %s\n", head)
		for _, d := range details {
			fmt.Fprintf(stderr, "    %s\n", d)
		}
	}
	return b, manualWarnings, nil
}

// said prints what the committed run did: the backup, the scores set
// aside, the counts, the typed scores merged, the files and exports
// written; and fails a batch with nothing gradable.
func (o *gradeOptions) said(b *batch.Batch, done *report.Committed, manualWarnings []grader.Warning, stdout, stderr io.Writer) error {
	fl, scores := o.fl, o.scores
	reportCommit(done, fl.out, stderr)
	if o.discarded > 0 && done.Backup != "" {
		fmt.Fprintf(stdout, "--force: set aside %d typed scores of %s; they are kept in %s\n", o.discarded, o.ownManual, filepath.Join(done.Backup, review.ManualFile))
	}
	sm := report.Summarize(b)
	fmt.Fprintf(stdout, "graded %s: %d gradable, %d ungradable; %d of %d learners did not submit; %s for manual review\n",
		nouns(sm.Submitted, "submission", "submissions"), sm.Gradable, sm.Ungradable, sm.Missing, sm.Learners, nouns(len(sm.Manual), "answer waits", "answers wait"))
	if scores != nil {
		verb := "merged manual scores from"
		if o.carried {
			verb = "carried forward the manual scores typed in"
		}
		changed, absent := scores.Carried()
		fmt.Fprintf(stdout, "%s %s: %s, %d still blank, %s\n", verb, fl.manual, nouns(len(scores.Rows), "scored row", "scored rows"), scores.Blank, nouns(len(manualWarnings), "warning", "warnings"))
		if changed+absent > 0 {
			fmt.Fprintf(stdout, "kept in the new %s without counting now: %s of answers that changed since (previous_score: re-read them), %d of learners not graded in this batch\n", review.ManualFile, nouns(changed, "score", "scores"), absent)
		}
	}
	fmt.Fprintf(stdout, "wrote %s\n", filepath.Join(fl.out, "grades.csv"))
	for _, e := range fl.exports {
		var buf bytes.Buffer
		notes, err := report.WriteLMS(b, &buf, e.format, fl.lmsColumn, filepath.Join(fl.out, review.ManualFile))
		if err == nil {
			err = os.WriteFile(e.file, buf.Bytes(), 0o644)
		}
		if err != nil {
			return fmt.Errorf("grade: --export %s=%s: %v", e.format, e.file, err)
		}
		for _, n := range notes {
			fmt.Fprintf(stderr, "grade: warning: --export %s: %s\n", e.format, n)
		}
		fmt.Fprintf(stdout, "wrote %s (%s gradebook import)\n", e.file, e.format)
	}
	if sm.Gradable == 0 {
		return fmt.Errorf("grade: nothing gradable: %s", nothingGradableHint(sm, *fl.exec.on))
	}
	return nil
}

// nothingGradableHint says what an instructor most likely did when no
// submission could be graded.
func nothingGradableHint(sm *report.Summary, executed bool) string {
	n := sm.Reasons[notebook.ReasonSelfCheck]
	switch {
	case n > 0 && n == sm.Ungradable && !executed:
		return fmt.Sprintf("in all %s the self-check was never run: is this the untouched release folder (give the collected submissions), or did the learners not run the self-check? grade --execute runs each notebook in the course image first", nouns(n, "notebook", "notebooks"))
	case n > 0 && !executed:
		return fmt.Sprintf("%d of %d notebooks never ran the self-check (grade --execute runs them); the others are named with their reasons in summary.md", n, sm.Ungradable)
	default:
		return "every file is named with its reason in summary.md and grades.csv: check that these are the collected submissions of this class, and the roster and key that assign used"
	}
}

// sameFile reports whether a and b name the same existing file.
func sameFile(a, b string) bool {
	x, err1 := os.Stat(a)
	y, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(x, y)
}

// publicTrace reads the unit's public trace: the file given, else the
// course data if it is there.
func publicTrace(path string) ([]byte, error) {
	if path != "" {
		return readInput(path, "a public trace", publicTraceLimit)
	}
	if b, err := os.ReadFile(coursekit.Data("unit01/trace.jsonl")); err == nil {
		return b, nil
	}
	return nil, nil
}

// gradeGradescope is one Gradescope autograder run. Key and roster
// default to ROOT/source/course.key and ROOT/source/roster.csv (the
// autograder zip unpacks into ROOT/source). A setup problem still writes
// a results.json (score 0, "ask the instructor") before failing.
func gradeGradescope(root, keyFile, rosterPath, public string, maxBytes int64, stdout io.Writer) error {
	if keyFile == "" {
		keyFile = filepath.Join(root, "source", "course.key")
	}
	if rosterPath == "" {
		rosterPath = filepath.Join(root, "source", "roster.csv")
	}
	setupFailed := func(err error) error {
		if werr := gradescope.WriteGradescopeFailure(root, err); werr != nil {
			return fmt.Errorf("grade: %v; writing results.json: %w", err, werr)
		}
		fmt.Fprintf(stdout, "grade: autograder setup: %v (wrote a results.json scoring 0)\n", err)
		return setupf("grade: %v", err)
	}
	key, err := secret.LoadKey(keyFile)
	if err != nil {
		return setupFailed(err)
	}
	roster, err := roster.ReadRosterFile(rosterPath)
	if err != nil {
		return setupFailed(err)
	}
	pub, err := publicTrace(public)
	if err != nil {
		return setupFailed(err)
	}
	g, err := grader.NewGrader(grader.Options{Key: key, Roster: roster, MaxBytes: maxBytes, Public: pub})
	if err != nil {
		return setupFailed(err)
	}
	run, err := gradescope.RunGradescope(g, root)
	if err != nil {
		return fmt.Errorf("grade: %w", err)
	}
	s := run.Sub
	who := s.Learner
	if who == "" {
		who = "(unknown)"
	}
	fmt.Fprintf(stdout, "learner %s (%s); file %s\n", who, gsIdentifiedBy(run), s.File)
	if s.Gradable {
		fmt.Fprintf(stdout, "score %v of %v (%v pending manual review)\n", s.Total, s.Max, s.Pending)
	} else {
		fmt.Fprintf(stdout, "ungradable (%s): %s\n", s.ReasonCode, s.Reason)
	}
	fmt.Fprintf(stdout, "wrote %s\n", filepath.Join(root, filepath.FromSlash(gradescope.GSResultsFile)))
	return nil
}

// reportCommit tells the instructor what a commit kept of the previous
// OUT: the backup, the files carried over, and the edits that only the
// backup holds now.
func reportCommit(c *report.Committed, out string, stderr io.Writer) {
	if c.Backup == "" {
		return
	}
	if len(c.Kept) > 0 {
		fmt.Fprintf(stderr, "grade: note: kept %s grade did not write in %s (%s)\n", nouns(len(c.Kept), "file", "files"), out, strings.Join(firstN(c.Kept, 5), ", "))
	}
	for i, f := range c.Edited {
		hint := "To send a comment to a learner, write it in the comment column of " + review.ManualFile
		if f == "grades.csv" {
			hint = "Scores typed into grades.csv do not count: type them into the score column of " + review.ManualFile
		}
		fmt.Fprintf(stderr, "grade: warning: %s was changed after grade wrote it; this run wrote it anew, and your version is kept in %s (no re-grade writes or deletes %s/). %s\n",
			filepath.FromSlash(f), filepath.Join(out, filepath.FromSlash(c.EditedKept[i])), report.EditedDir, hint)
	}
	for _, f := range c.Clashes {
		fmt.Fprintf(stderr, "grade: warning: %s was added where this run writes a file of its own; yours is in %s\n", filepath.FromSlash(f), filepath.Join(c.Backup, filepath.FromSlash(f)))
	}
	fmt.Fprintf(stderr, "grade: note: the previous run is kept in %s (the newest %s kept)\n", c.Backup, nouns(report.Backups, "backup is", "backups are"))
}

func firstN(s []string, n int) []string {
	if len(s) > n {
		return append(s[:n:n], fmt.Sprintf("… and %d more", len(s)-n))
	}
	return s
}

// coveredLearners are the learners subs may be filed under before the
// batch decides (package batch): each one's learner, its record's, the
// one its name says, and the one the roster's lms_id gives its LMS
// account (a roster mismatch may file it there).
func coveredLearners(ro *roster.Roster, subs []*grader.Submission) map[string]bool {
	have := map[string]bool{}
	for _, s := range subs {
		have[s.Learner], have[s.RecordOf], have[s.NameSays], have[s.RosterSays()] = true, true, true, true
		if n := s.LMSNumber(); n != "" {
			have[ro.ByLMSID(n)] = true
		}
	}
	delete(have, "")
	return have
}

// knownLearners says whether id is a learner of this batch (a submission's
// learner, the learner of its signed record, or the learner its name
// says) or had a submission in the previous run into OUT (prev).
func knownLearners(prev *report.Run, ro *roster.Roster, subs []*grader.Submission) func(string) bool {
	known := coveredLearners(ro, subs)
	if prev != nil {
		for _, id := range prev.Learners {
			known[id] = true
		}
	}
	delete(known, "")
	return func(id string) bool { return known[id] }
}

// checkWholeClass refuses a run whose submissions do not cover every
// learner the previous run into OUT had a submission of: written, it
// would turn them into "no submission" and drop their feedback. The
// error names them and gives the command that grades the class with the
// new files added (the previous run's inputs, then these).
func checkWholeClass(prev *report.Run, ro *roster.Roster, subs []*grader.Submission, pos []string, fs *flag.FlagSet, out string) error {
	have := coveredLearners(ro, subs)
	var missing []string
	for _, id := range prev.Learners {
		if !have[id] {
			missing = append(missing, id)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	cmd := []string{"coursekit", "grade"}
	fs.Visit(func(f *flag.Flag) {
		if bf, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && bf.IsBoolFlag() {
			if f.Value.String() == "true" {
				cmd = append(cmd, "--"+f.Name)
			}
			return
		}
		cmd = append(cmd, "--"+f.Name, shellQuote(f.Value.String()))
	})
	given := map[string]bool{}
	for _, p := range pos {
		if abs, err := filepath.Abs(p); err == nil {
			given[abs] = true
		}
	}
	var gone []string
	for _, in := range prev.Inputs {
		if given[in] {
			continue
		}
		if _, err := os.Stat(in); err != nil {
			gone = append(gone, in)
			continue
		}
		cmd = append(cmd, shellQuote(in))
	}
	for _, p := range pos {
		cmd = append(cmd, shellQuote(p))
	}
	msg := fmt.Sprintf("grade: %s holds a graded class, but these submissions have no file of %d of its learners (%s): grading them alone would make those learners \"no submission\" and remove their feedback. Nothing was written.\nTo grade the class with these files added, run:\n  %s\n",
		out, len(missing), strings.Join(firstN(missing, 10), ", "), strings.Join(cmd, " "))
	if len(gone) > 0 {
		msg += fmt.Sprintf("(the previous run also graded %s, which is not there now: add it where it is now)\n", strings.Join(gone, ", "))
	}
	msg += "To grade only these files and leave the others with no submission, add --replace (the previous run is kept in a backup)."
	return setupf("%s", msg)
}

var shellSafe = regexp.MustCompile(`^[A-Za-z0-9_./:=@%+,-]+$`)

// shellQuote is s as one word for a POSIX shell.
func shellQuote(s string) string {
	if shellSafe.MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// exportSpec is one --export FORMAT=FILE.
type exportSpec struct{ format, file string }

// exportFlag is the repeatable --export flag.
type exportFlag []exportSpec

func (e *exportFlag) String() string {
	var parts []string
	for _, x := range *e {
		parts = append(parts, x.format+"="+x.file)
	}
	return strings.Join(parts, ",")
}

func (e *exportFlag) Set(v string) error {
	format, file, ok := strings.Cut(v, "=")
	format = strings.ToLower(strings.TrimSpace(format))
	if !ok || file == "" || !slices.Contains(report.ExportFormats, format) {
		return fmt.Errorf("want FORMAT=FILE.csv with FORMAT %s, e.g. canvas=canvas-grades.csv; got %q", strings.Join(report.ExportFormats, " or "), v)
	}
	*e = append(*e, exportSpec{format, file})
	return nil
}

// gsIdentifiedBy says where a Gradescope run's learner came from. When the signed release record
// names another learner than the account (not_own_submission), the learner shown is the
// account's, from the submission metadata, not the record's: saying "identified by
// release_record" there would name the wrong source.
func gsIdentifiedBy(run *gradescope.GSRun) string {
	s := run.Sub
	switch {
	case s != nil && s.RecordOf != "" && s.RecordOf != s.Learner:
		return "identified by the Gradescope account in the submission metadata; the signed release record is another learner's"
	case run.IdentifiedBy == "release_record":
		return "identified by the signed release record in the notebook (release_record)"
	case run.IdentifiedBy == "gradescope_sid":
		return "identified by the Gradescope account's student id in the submission metadata (gradescope_sid)"
	case run.IdentifiedBy == "gradescope_email":
		return "identified by the Gradescope account's email in the submission metadata (gradescope_email)"
	case run.IdentifiedBy != "":
		return "identified by " + run.IdentifiedBy
	}
	return "nobody identified"
}

// nouns is n and the noun (or noun and verb) in the number n takes: "1
// warning", "2 warnings".
func nouns(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
