package compare

import (
	"bytes"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/llmperf-course/course/coursekit/lang"

	"github.com/llmperf-course/course/coursekit/cardopts"
	"github.com/llmperf-course/course/coursekit/metrics"
	"github.com/llmperf-course/course/coursekit/trace"
)

// File is a trace file and the name it goes by in a comparison.
type File struct {
	Path, Name string
}

// DuplicateError is one trace given twice: the same file under two
// arguments, or two files with the same content (a copy). A run counted
// twice would narrow the intervals and pass for the variance between runs,
// so Files refuses it.
type DuplicateError struct {
	// First and Second are the two arguments' names, in the order given.
	First, Second string
	// SameFile is true when both name one file, false when they are two
	// files with identical content.
	SameFile bool
	// Sides is true when First is a run of A and Second one of B, and the
	// sides do not hold the same runs (which would be the A/A check).
	Sides bool
}

func (e *DuplicateError) Error() string {
	if e.Sides {
		return fmt.Sprintf("compare: %s (A) and %s (B) are one run on both sides: a run belongs to one side, unless both sides hold the same runs (the A/A check); give each run on its own side", e.First, e.Second)
	}
	if e.SameFile {
		return fmt.Sprintf("compare: %s and %s are the same file: each run counts once (give every run's trace once)", e.First, e.Second)
	}
	return fmt.Sprintf("compare: %s and %s have identical content: one run copied is not two runs (give every run's trace once)", e.First, e.Second)
}

// Files compares trace files: a and b are each side's runs, named by
// their paths. Every trace is read once (a bad one is an error naming
// FILE:LINE) and judged under one SLO set: o.Card's, or, without one, the
// first A trace's (its header's conditions.slo, else 1 s), so that a run
// recorded under other SLOs is still judged like the rest (and its
// recorded SLOs show up as a changed condition). A file given twice on one
// side, or two files with the same content, is a *DuplicateError; so is a
// run on both sides, but for the A/A check: both sides holding the same
// runs (one trace against itself, or A1 A2 -- A2 A1), every verdict ~.
func Files(a, b []string, o Options) (*Result, error) {
	named := func(paths []string) []File {
		out := make([]File, len(paths))
		for i, p := range paths {
			out[i] = File{Path: p, Name: p}
		}
		return out
	}
	return NamedFiles(named(a), named(b), o)
}

// NamedFiles is Files with names of the caller's choosing.
func NamedFiles(a, b []File, o Options) (*Result, error) {
	for _, side := range [][]File{a, b} {
		if err := sameFiles(side); err != nil {
			return nil, err
		}
	}
	all := append(append([]File(nil), a...), b...)
	flags := o.CardFlags()
	fromFirst := len(flags.TTFTMS) == 0 && !flags.Latency.Set()
	var ra, rb []Run
	sums := make([]uint64, len(all))
	seed := maphash.MakeSeed()
	for i, f := range all {
		// One summary per trace, through cardopts as the card's; the
		// content is hashed on the way, to catch a copy given as a run.
		s, sum, err := summarizeFile(f.Path, flags, seed)
		if err != nil {
			return nil, err
		}
		sums[i] = sum
		if i == 0 {
			flags.TTFTMS, flags.Latency = nil, metrics.LatencySLO{}
			for _, c := range s.Conditions {
				flags.TTFTMS = append(flags.TTFTMS, c.SLOTTFTMS)
				flags.Latency = c.LatencySLO
			}
		}
		if i < len(a) {
			ra = append(ra, Run{Name: f.Name, Summary: s})
		} else {
			rb = append(rb, Run{Name: f.Name, Summary: s})
		}
	}
	if err := duplicates(a, b, sums); err != nil {
		return nil, err
	}
	r, err := Compare(ra, rb, o)
	if err == nil && fromFirst && len(a) > 0 {
		r.SLOFrom = a[0].Name
		r.Warnings = r.warnings(lang.EN) // the JSON's, now naming that run
	}
	return r, err
}

// duplicates finds a run given twice among the files a then b, by the
// hashes of their content: twice on one side, or on both sides when the
// sides do not hold the same runs.
func duplicates(a, b []File, sums []uint64) error {
	sa, sb := sums[:len(a)], sums[len(a):]
	for _, side := range []struct {
		files []File
		sums  []uint64
	}{{a, sa}, {b, sb}} {
		seen := map[uint64]string{}
		for i, s := range side.sums {
			if first, ok := seen[s]; ok {
				return &DuplicateError{First: first, Second: side.files[i].Name}
			}
			seen[s] = side.files[i].Name
		}
	}
	if same := slices.Sorted(slices.Values(sa)); slices.Equal(same, slices.Sorted(slices.Values(sb))) {
		return nil // the A/A check
	}
	for j, s := range sb {
		if i := slices.Index(sa, s); i >= 0 {
			return &DuplicateError{First: a[i].Name, Second: b[j].Name, Sides: true}
		}
	}
	return nil
}

// summarizeFile is the file's summary for Compare and a 64-bit hash of its
// bytes (maphash, seeded once per comparison: several times faster than
// SHA-256 over gigabytes, and two different traces collide with a chance of
// 2⁻⁶⁴), read once.
func summarizeFile(path string, flags cardopts.Flags, seed maphash.Seed) (*metrics.Summary, uint64, error) {
	r, err := trace.OpenFile(path)
	if err != nil {
		return nil, 0, err
	}
	defer r.Close()
	var h maphash.Hash
	h.SetSeed(seed)
	s, err := cardopts.SummarizeReader(io.TeeReader(r, &h), path, flags, cardopts.Resampling())
	if err != nil {
		return nil, 0, firstLineError(path, cardopts.NotACard(path, err))
	}
	// The summary may stop before the end (a trailing blank line): hash
	// the rest too.
	if _, err := io.Copy(&h, r); err != nil {
		return nil, 0, err
	}
	return s, h.Sum64(), nil
}

// sameFiles finds two arguments that name one file (the same path, or
// two paths to one file), before any is read.
func sameFiles(files []File) error {
	infos := make([]os.FileInfo, len(files))
	for i, f := range files {
		infos[i], _ = os.Stat(f.Path) // a missing file fails when read
		for j := range i {
			same := filepath.Clean(files[j].Path) == filepath.Clean(f.Path)
			if !same && infos[i] != nil && infos[j] != nil {
				same = os.SameFile(infos[i], infos[j])
			}
			if same {
				return &DuplicateError{First: files[j].Name, Second: f.Name, SameFile: true}
			}
		}
	}
	return nil
}

// firstLineError says what a file whose first line is no header is, when
// that can be told: an HTML page (a chart given as a trace), or a blank
// first line (the header missing), rather than the parser's "not valid
// JSON" or "blank line" alone. Other errors are returned as they are.
func firstLineError(path string, err error) error {
	var te *trace.Error
	if !errors.As(err, &te) || te.Line != 1 {
		return err
	}
	const shape = "a trace is JSON Lines: its header line first, then one attempt per line, as bench writes them"
	if strings.HasPrefix(te.Msg, "blank line") {
		return &trace.Error{File: te.File, Line: 1, Msg: "blank first line: the header is missing; " + shape}
	}
	f, err2 := os.Open(path)
	if err2 != nil {
		return err
	}
	defer f.Close()
	head := make([]byte, 512)
	n, _ := io.ReadFull(f, head)
	head = bytes.ToLower(bytes.TrimLeft(bytes.TrimPrefix(head[:n], []byte("\ufeff")), " \t\r\n"))
	if bytes.HasPrefix(head, []byte("<!doctype html")) || bytes.HasPrefix(head, []byte("<html")) {
		return &trace.Error{File: te.File, Line: 1, Msg: "looks like an HTML page (a chart, such as --chart writes?), not a trace: give the trace itself; " + shape}
	}
	return err
}
