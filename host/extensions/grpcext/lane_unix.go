//go:build unix

package grpcext

import (
	"net"
	"os"
	"syscall"
	"time"
)

// laneSockets makes the two ends of an event lane: the host's as a
// net.Conn on the runtime's poller, the plugin's as a file for the child's
// ExtraFiles (the parent closes it once the child has started).
func laneSockets() (net.Conn, *os.File, error) {
	syscall.ForkLock.RLock()
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err == nil {
		syscall.CloseOnExec(fds[0])
		syscall.CloseOnExec(fds[1])
	}
	syscall.ForkLock.RUnlock()
	if err != nil {
		return nil, nil, os.NewSyscallError("socketpair", err)
	}
	hostEnd := os.NewFile(uintptr(fds[0]), "event-lane")
	conn, err := net.FileConn(hostEnd) // a duplicate on the poller
	hostEnd.Close()
	if err != nil {
		syscall.Close(fds[1])
		return nil, nil, err
	}
	return conn, os.NewFile(uintptr(fds[1]), "event-lane-plugin"), nil
}

// setReadTimeout sets the receive timeout of the socket f (SO_RCVTIMEO):
// a blocking read of it fails after d.
func setReadTimeout(f *os.File, d time.Duration) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var serr error
	err = rc.Control(func(fd uintptr) {
		tv := syscall.NsecToTimeval(d.Nanoseconds())
		serr = syscall.SetsockoptTimeval(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVTIMEO, &tv)
	})
	if err != nil {
		return err
	}
	return os.NewSyscallError("setsockopt", serr)
}
