package lab

import "syscall"

// engineProcAttr ties the engine to the cell's process: when a GoNB cell is
// interrupted or dies, the kernel sends the engine SIGTERM, so that no
// engine outlives the cell that started it.
func engineProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
}
