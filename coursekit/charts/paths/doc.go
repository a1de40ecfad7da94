// Package paths draws system paths as graphs: the unit's training and
// inference paths over their shared resources (Figure 01.1, System), and a
// learner's own path map (Map), each step coloured by its layer with its
// marks and failure point, and every learner text wrapped, never cut.
package paths
