//go:build !linux

package jsonl

// growPipe and pipeUnread know Linux pipes only: elsewhere lines longer
// than pipeBuf are written without waiting for room.
func growPipe(fd, size int) int { return 0 }

func pipeUnread(fd int) int { return -1 }
