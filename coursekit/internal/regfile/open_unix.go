//go:build unix

package regfile

import (
	"errors"
	"syscall"
)

const (
	noFollow  = syscall.O_NOFOLLOW
	openFlags = syscall.O_NOFOLLOW | syscall.O_NONBLOCK
)

func isLoop(err error) bool { return errors.Is(err, syscall.ELOOP) }
