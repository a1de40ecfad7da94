// Package course carries released course files inside the coursekit
// binary, so that `coursekit assign` and `grade --execute` find the
// deliverable from any directory, and from an installed binary (go
// install, a Gradescope image) that has no source tree next to it.
package course

import _ "embed"

// DeliverableName is the file name of unit 01's deliverable notebook.
const DeliverableName = "06-deliverable.ipynb"

// Deliverable is notebooks/unit01/06-deliverable.ipynb as it was when the
// binary was built: the default release of assign and grade --execute.
//
//go:embed notebooks/unit01/06-deliverable.ipynb
var Deliverable []byte
