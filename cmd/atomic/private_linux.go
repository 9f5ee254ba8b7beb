package main

import "golang.org/x/sys/unix"

// makePrivate marks the process non-dumpable: /proc/<pid>/fd, /proc/<pid>/
// environ, /proc/<pid>/mem and the like are then owned by root and closed
// to the user's other processes (the model's bash commands, plugins and
// their children), so none of them can open the private protocol
// descriptors through /proc/<pid>/fd/N or read the credentials in the
// environment. The process itself still reads /proc/self; world-readable
// files such as /proc/<pid>/status stay readable; no core dump is written.
// Root, or a process with CAP_SYS_PTRACE, still gets through.
func makePrivate() error {
	return unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0)
}
