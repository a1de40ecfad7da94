package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/llmperf-course/course/coursekit/collect"
	"github.com/llmperf-course/course/coursekit/grade/roster"
	"github.com/llmperf-course/course/coursekit/internal/safetext"
)

// cmdCollect gathers every learner's deliverable from a hub's per-learner
// volumes or user directories into one folder for `coursekit grade`.
//
//	coursekit collect --out DIR (--volumes TEMPLATE [--engine podman] | --dirs ROOT [--layout TEMPLATE]) [--roster roster.csv] [--notebook 06-deliverable.ipynb]
func cmdCollect(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("collect", flag.ContinueOnError)
	out := fs.String("out", "", "folder to collect into, one <id>.ipynb per learner (required; created; refused if it holds other or different files)")
	volumes := fs.String("volumes", "", "collect from the engine's volumes named by this template, e.g. 'llmperf-course-{username}' (DockerSpawner's c.DockerSpawner.volumes; required unless --dirs)")
	engine := fs.String("engine", "podman", "container engine CLI that lists the volumes: podman or docker (run as a user that can read their mount points, e.g. root)")
	dirs := fs.String("dirs", "", "collect from the user directories under this folder instead, e.g. a hub's /home (required unless --volumes)")
	layout := fs.String("layout", "{username}", "with --dirs: each learner's work folder under it, e.g. '{username}/work' or 'claim-{username}'")
	rosterPath := fs.String("roster", "", "optional roster CSV (id column): learners on it with no volume or no deliverable are listed")
	notebook := fs.String("notebook", collect.DefaultNotebook, "the deliverable's file name, looked for anywhere in a learner's files")
	maxBytes := fs.Int64("max-bytes", collect.DefaultMaxBytes, "do not copy a notebook larger than this (it is listed)")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("collect: unexpected arguments %q", pos)
	}
	if *out == "" || (*volumes == "") == (*dirs == "") {
		return usagef("collect: want --out and exactly one of --volumes TEMPLATE or --dirs ROOT")
	}
	var ids []string
	if *rosterPath != "" {
		r, err := roster.ReadRosterFile(*rosterPath)
		if err != nil {
			return setupf("collect: %v", err)
		}
		for _, w := range encNote(nil, r.Path, r.Encoding) {
			fmt.Fprintf(stderr, "collect: warning: %s\n", w.Text)
		}
		for _, l := range r.Learners {
			ids = append(ids, l.ID)
		}
	}
	var homes []collect.Home
	if *volumes != "" {
		homes, err = collect.Volumes(context.Background(), *engine, *volumes)
	} else {
		homes, err = collect.Dirs(*dirs, *layout)
	}
	if err != nil {
		return setupf("collect: %v", err)
	}
	if len(homes) == 0 {
		return setupf("collect: no learner volume or directory matches %s%s", *volumes, *dirs)
	}
	res, err := collect.Collect(homes, collect.Options{Out: *out, Notebook: *notebook, Roster: ids, MaxBytes: *maxBytes})
	if err != nil {
		return setupf("%v", err)
	}
	for _, f := range res.Files {
		note := ""
		if f.Same {
			note = " (unchanged)"
		}
		fmt.Fprintf(stdout, "%s\t%s\t<- %s%s\n", safetext.Line(f.Learner), safetext.Line(f.Dest), safetext.Line(f.Source), note)
	}
	// Learner ids, folder and file names come from the learners' folders:
	// each warning is one line, with control codes and newlines escaped.
	warn := func(format string, a ...any) {
		fmt.Fprintln(stderr, "collect: "+safetext.Line(fmt.Sprintf(format, a...)))
	}
	for _, id := range res.Several {
		warn("%s has several %s files: all are kept in %s/; grade grades each and puts the last into grades.csv: check which one counts", id, *notebook, id)
	}
	if len(res.Missing) > 0 {
		warn("no %s in the files of: %s", *notebook, strings.Join(res.Missing, ", "))
	}
	if len(res.NoHome) > 0 {
		warn("on the roster with no volume or directory: %s", strings.Join(res.NoHome, ", "))
	}
	if len(res.NotOnRoster) > 0 {
		warn("not on the roster (collected anyway): %s", strings.Join(res.NotOnRoster, ", "))
	}
	for _, s := range res.Skipped {
		warn("%s: %s: %s", s.Learner, s.Source, s.Reason)
	}
	for _, s := range res.Similar {
		warn("%s: %s: %s", s.Learner, s.Source, s.Reason)
	}
	learners := map[string]bool{}
	for _, f := range res.Files {
		learners[f.Learner] = true
	}
	// Without a deliverable: every learner with a home and no file (none
	// found, or the home skipped) and every roster learner with no home.
	without := len(res.NoHome)
	for _, h := range homes {
		if !learners[h.Learner] {
			without++
		}
	}
	fmt.Fprintf(stdout, "collected %s of %s into %s (%s); %d without a deliverable, %d with several\n",
		nouns(len(res.Files), "notebook", "notebooks"), nouns(len(learners), "learner", "learners"), *out, collect.ManifestFile, without, len(res.Several))
	return nil
}
