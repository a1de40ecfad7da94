//go:build !linux

package lab

import "syscall"

// engineProcAttr: only Linux can tie a child's life to its parent's.
func engineProcAttr() *syscall.SysProcAttr { return nil }
