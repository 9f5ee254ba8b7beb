package jsonl

import "golang.org/x/sys/unix"

// growPipe asks for a pipe capacity of size bytes and returns the capacity
// the pipe has (0 when it cannot tell).
func growPipe(fd, size int) int {
	n, err := unix.FcntlInt(uintptr(fd), unix.F_GETPIPE_SZ, 0)
	if err != nil {
		return 0
	}
	if n < size {
		if m, err := unix.FcntlInt(uintptr(fd), unix.F_SETPIPE_SZ, size); err == nil {
			n = m
		}
	}
	return n
}

// pipeUnread returns the bytes the pipe holds, or -1 when it cannot tell.
func pipeUnread(fd int) int {
	n, err := unix.IoctlGetInt(fd, unix.TIOCINQ) // FIONREAD
	if err != nil {
		return -1
	}
	return n
}
