// Package execute re-runs submitted notebooks (coursekit grade --execute):
// the one place learner code runs, and only inside the course image, with
// no network, under per-cell and whole-notebook timeouts, with the locked
// cells restored first. The run is scored as the execution criterion.
package execute
