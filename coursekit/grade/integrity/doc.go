// Package integrity checks one submission against its signed release
// record and against itself: locked cells, the card cell against the
// self-check output, the trace the self-check read. Its findings never
// change a score: the instructor decides.
package integrity
