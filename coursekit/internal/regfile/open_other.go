//go:build !unix

package regfile

// Elsewhere the open follows links and may block on a FIFO; the Lstat
// before and the check of the opened file's mode after still refuse them.
const noFollow, openFlags = 0, 0

func isLoop(error) bool { return false }
