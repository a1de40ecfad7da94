// Package notebook reads a submitted notebook without running it: its
// cells, the signed release record in its metadata, the card the
// self-check embedded in its output, and the card cell's Go source,
// parsed but never compiled. What it cannot read is Ungradable, with a
// reason the learner can act on. It also writes notebooks as Jupyter does,
// for the packages that release and restore them.
package notebook
