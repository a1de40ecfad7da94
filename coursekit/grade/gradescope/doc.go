// Package gradescope writes Gradescope's results.json, checked against the
// autograder spec (an invalid file fails the whole run), and is the
// autograder itself (coursekit grade --gradescope). The scripts beside it
// build the autograder zip.
package gradescope
