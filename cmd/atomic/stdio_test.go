package main_test

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/atomic-go/atomic/internal/e2e"
)

// The agent reads and writes pipes through private descriptions of them:
// the descriptions it inherited (which a client or a shell may share)
// keep their flags, blocking in particular.
func TestRPCLeavesInheritedPipesBlocking(t *testing.T) {
	cmd, _ := e2e.Command(t, e2e.Options{})
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdin, cmd.Stdout = inR, outW
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	defer func() {
		inW.Close()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	}()
	if _, err := inW.WriteString(`{"id":"s","type":"get_state"}` + "\n"); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(outR).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, `{"id":"s","type":"response","command":"get_state","success":true`) {
		t.Fatalf("response %q %v", line, err)
	}
	// The agent is serving: look at the shared descriptions now.
	for name, f := range map[string]*os.File{"stdin": inR, "stdout": outW} {
		flags, err := fcntlGetFL(f)
		if err != nil {
			t.Fatal(err)
		}
		if flags&syscall.O_NONBLOCK != 0 {
			t.Errorf("the agent made the inherited %s description non-blocking", name)
		}
	}
}

// Commands from a regular file (not a pipe) are served too.
func TestRPCFromAFile(t *testing.T) {
	in := filepath.Join(t.TempDir(), "commands.jsonl")
	if err := os.WriteFile(in, []byte(`{"id":"a","type":"get_state"}`+"\n"+`{"id":"b","type":"get_messages"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(in)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := filepath.Join(t.TempDir(), "out.jsonl")
	o, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	cmd, _ := e2e.Command(t, e2e.Options{})
	cmd.Stdin, cmd.Stdout = f, o
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `{"id":"a","type":"response","command":"get_state","success":true`) ||
		!strings.Contains(string(data), `{"id":"b","type":"response","command":"get_messages","success":true,"data":{"messages":[]}}`) {
		t.Fatalf("output:\n%s", data)
	}
}

func fcntlGetFL(f *os.File) (int, error) {
	rc, err := f.SyscallConn()
	if err != nil {
		return 0, err
	}
	var flags int
	var ferr error
	err = rc.Control(func(fd uintptr) {
		r, _, errno := syscall.Syscall(syscall.SYS_FCNTL, fd, syscall.F_GETFL, 0)
		if errno != 0 {
			ferr = errno
		}
		flags = int(r)
	})
	if err != nil {
		return 0, err
	}
	return flags, ferr
}
