// Package coursekit is the entry point for the course's notebooks and tools.
//
// The work is split into one package per job, and data flows one way:
// trace (the recorded attempts) → metrics (the honest summary card) →
// charts, notebooks and grades. This root package only re-exports the few
// calls a learner's first notebook cell needs.
package coursekit

// Version is the coursekit release the notebooks and the CLI report.
const Version = "0.1.0"
