// Package criteria is the rubric: the criterion ids and their default
// points, weights files, and how one card is scored against the
// learner's own variant (full, partial or pending credit per criterion).
// A new criterion gets its points here; its check is in package card.
package criteria
