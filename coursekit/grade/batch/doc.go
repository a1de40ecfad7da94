// Package batch holds a graded class together: which of a learner's files
// counts, and what only the whole class shows (a release record handed in
// by two accounts, LMS accounts, the same free-text answer twice, a key
// that verifies few records).
package batch
