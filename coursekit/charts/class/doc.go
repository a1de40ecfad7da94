// Package class draws what `coursekit grade` shows the instructor in
// OUT/class.html: the score distribution, each criterion's pass rate and
// the typical mistakes. The charts take plain counts (the grader computes
// them), so this package does not depend on the grader; every name goes
// through charts.Label, since mistake names and learner ids must not
// inject markup.
package class
