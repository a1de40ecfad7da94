// Package unit01 holds the checks of unit 01's notebooks: each
// prediction's and exercise's accepted answers and the hint for each
// anticipated mistake, so a learner cell stays one call and shows no
// answer before the learner has guessed.
//
// One file per notebook (timeline.go for 02, conclusions.go for 03,
// threshold.go for 04, tooldocs.go for 05), one exported function per
// check, named for what it checks. A check prints exactly what the
// notebook's cell printed when the check lived in the cell: the same
// verdicts, the same Chinese hints, and the same gate (a function that
// shows anything beyond nb.Compare's verdict asks nb.Guessed of its
// prediction first, and shows nothing until it is written).
//
// A prediction is the notebook's own struct, declared in the learner's
// cell with a comment per field. A check takes it as a type parameter
// whose underlying type is the struct the check reads (TimelinePrediction
// and the like), so the cell passes its variable as it is, the compiler
// holds the two declarations to one shape, and nb.Guessed still names a
// missing field by the notebook's type (Prediction.TTFTMS).
//
// The parameters are named as the notebooks name their variables
// (prediction, unit, timeline, …): coursekit/textcheck's tests read each
// check's body in place of the cell's call, and type every right answer and
// every anticipated wrong one into it.
package unit01
