// Package grade is where unit 01's grading lives. Its code is in the
// packages below, one job each, so that a change to one job means reading
// one package; this package holds only tests, most of them end to end.
//
//   - secret: the instructor's key, and the HMAC every variant and signature derives from
//   - roster: the class list, and the learner behind an LMS download name
//   - notebook: reading a notebook without running it: cells, signed release record, card
//   - assign: releasing the deliverable: each learner's variant trace and signed notebook
//   - criteria: the rubric: criterion ids, points, weights files, scoring one card
//   - integrity: findings on one submission, against its release record and itself
//   - grader: grading submissions one by one, from files, folders and LMS zips
//   - batch: a graded class: which file counts, and findings only the class shows
//   - review: the manual-review file a person fills in
//   - feedback: each learner's feedback
//   - gradescope: Gradescope's results.json, and the autograder run
//   - execute: re-running notebooks in the course image (grade --execute)
//   - report: the instructor's outputs: grades.csv, summary, class report
//
// Why grading reads instead of runs: the self-check embeds the card as
// JSON (card.MIMEType) in its output, and the card cell's Go source is
// parsed, never built or run, so every public and hidden criterion is
// recomputed outside the learner's kernel, where nothing the learner wrote
// can monkeypatch the checks.
//
// Why variants: each learner gets their own 10-attempt trace, seeded by an
// HMAC of the instructor's key and the learner id, so that a card copied
// from someone else carries someone else's numbers. Locked cells (the
// instructions, data loading and the self-check) are signed with the same
// key, so edits, deletions and duplicates are reported per submission.
//
// Bad input never stops a batch: every submission ends graded or
// "ungradable, with reason".
//
// A new criterion: a public one is one of the deliverable's own checks
// (package card), so the self-check and the grader agree; a hidden one is
// a check in package card's HiddenChecks. Either way its id gets its
// default points in criteria.DefaultPoints (and, for partial credit or
// free text, its rule in criteria), and its feedback is in Chinese.
package grade
