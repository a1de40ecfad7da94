// Package assign releases the deliverable (coursekit assign): each
// learner's own variant of the unit's trace, seeded by the instructor's key,
// and their copy of the notebook with its locked cells signed, so that a
// copied card carries someone else's numbers and an edited locked cell
// shows.
package assign
