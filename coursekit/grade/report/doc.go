// Package report writes what the instructor gets from a graded class:
// grades.csv for the LMS, manual-review.csv, the summary, the class report,
// and each learner's feedback and results.json, replacing the output folder
// as a whole.
package report
