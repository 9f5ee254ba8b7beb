package fault

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/atomic-go/atomic/internal/e2e"
)

// Class 4 of issue 17: the protocol runs on private close-on-exec
// descriptors, and the agent is non-dumpable, so that no child (a bash
// command of the model, a plugin's child) and no other process of the
// same user can write into the protocol stream through /proc/<pid>/fd/N
// or their own inherited descriptors. Root keeps CAP_SYS_PTRACE and gets
// through, so as root the agent runs as nobody here.

const nobody = 65534

// unprivileged makes cmd run as nobody when the test runs as root (and
// lets nobody reach the binaries and files it needs); otherwise it leaves
// cmd alone.
func unprivileged(t *testing.T, cmd *exec.Cmd, own []string, reach ...string) {
	t.Helper()
	if os.Geteuid() != 0 {
		return
	}
	for _, p := range reach {
		for d := p; d != "/" && d != "."; d = filepath.Dir(d) {
			if fi, err := os.Stat(d); err == nil && fi.IsDir() && fi.Mode().Perm()&0o005 != 0o005 && strings.HasPrefix(d, os.TempDir()) {
				if err := os.Chmod(d, fi.Mode().Perm()|0o055); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	for _, root := range own {
		err := filepath.Walk(root, func(p string, _ os.FileInfo, err error) error {
			if err != nil {
				return err
			}
			return os.Lchown(p, nobody, nobody)
		})
		if err != nil {
			t.Fatal(err)
		}
		reach = append(reach, root)
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
}

// injections is a shell script that tries every way into the protocol
// stream from a process whose ancestor (pid in $1) is the agent.
const injections = `p=$1
echo "ls: $(ls /proc/$p/fd 2>&1 | head -3 | tr '\n' ' ')"
echo "environ: $(head -c 20 /proc/$p/environ 2>&1 | tr '\0' ' ' | head -c 80)"
for n in $(seq 0 100); do printf '{"type":"injected","via":"proc","n":%d}\n' $n > /proc/$p/fd/$n; done 2>/dev/null
for n in $(seq 0 100); do printf '{"type":"injected","via":"proc-task","n":%d}\n' $n > /proc/$p/task/$p/fd/$n; done 2>/dev/null
for n in $(seq 3 100); do printf '{"type":"injected","via":"inherited","n":%d}\n' $n > /dev/fd/$n; done 2>/dev/null
echo "own fds: $(ls /proc/self/fd | tr '\n' ' ')"
echo finished`

func TestChildrenCannotReachTheProtocolStream(t *testing.T) {
	script := func(pid string) string {
		return "sh -c '" + strings.ReplaceAll(injections, "'", `'"'"'`) + "' sh " + pid
	}
	plugin := e2e.BuildPlugin(t, "./internal/testplugin")
	pdir := e2e.PluginDir(t, t.TempDir(), "reach", plugin, "-tool", "spawn")
	settings, _ := json.Marshal(map[string]any{"extensions": []any{pdir}})
	cmd, env := e2e.Command(t, e2e.Options{
		Script: []map[string]any{
			{"toolCalls": []map[string]any{{"name": "bash", "arguments": map[string]any{"command": script("$PPID")}}}},
			{"toolCalls": []map[string]any{{"name": "spawn", "arguments": map[string]any{"text": "sh:" + script("$AGENT_PID")}}}},
			reply("done"),
		},
		AgentFiles: map[string]string{"settings.json": string(settings)},
	})
	unprivileged(t, cmd, []string{env.Home, env.Dir}, cmd.Path, plugin, pdir)
	// The client's pipes belong to the agent's user, as they do when the
	// user starts the agent (a pipe is opened through /proc/<pid>/fd/N
	// with the permissions of its inode).
	ir, stdin, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	if os.Geteuid() == 0 {
		for _, f := range []*os.File{ir, stdin, pr, pw} {
			if err := f.Chown(nobody, nobody); err != nil {
				t.Fatal(err)
			}
		}
	}
	cmd.Stdin, cmd.Stdout = ir, pw
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pw.Close()
	ir.Close()
	defer cmd.Process.Kill()
	lines := make(chan string, 1024)
	go func() {
		defer close(lines)
		br := bufio.NewReaderSize(pr, 1<<20)
		for {
			line, err := br.ReadString('\n')
			if line != "" {
				lines <- line
			}
			if err != nil {
				return
			}
		}
	}()
	stdin.Write([]byte(`{"id":"p","type":"prompt","message":"go"}` + "\n"))
	var results []string
	timeout := time.After(60 * time.Second)
	check := func(line string) {
		if err := e2e.CheckRecordLine([]byte(line)); err != nil {
			t.Fatalf("a stdout line is not a record (%v): %q", err, clip(line, 300))
		}
		var rec map[string]any
		_ = json.Unmarshal([]byte(line), &rec)
		if rec["type"] == "injected" {
			t.Fatalf("a child wrote into the protocol stream: %q", line)
		}
		if rec["type"] == "tool_execution_end" {
			b, _ := json.Marshal(rec["result"])
			results = append(results, string(b))
		}
	}
wait:
	for {
		select {
		case line, ok := <-lines:
			if !ok {
				t.Fatalf("stdout ended early; stderr:\n%s", stderr.String())
			}
			check(line)
			if strings.Contains(line, `"type":"agent_end"`) {
				break wait
			}
		case <-timeout:
			t.Fatalf("no agent_end; stderr:\n%s", stderr.String())
		}
	}
	stdin.Close()
	for line := range lines {
		check(line)
	}
	_ = cmd.Wait()
	if len(results) != 2 {
		t.Fatalf("want 2 tool results, got %d: %v", len(results), results)
	}
	for i, r := range results {
		t.Logf("tool %d: %s", i, r)
		if !strings.Contains(r, "finished") {
			t.Fatalf("tool %d did not finish its script: %s", i, r)
		}
		if !strings.Contains(r, "ls: ls: cannot") {
			t.Errorf("tool %d listed the agent's descriptors: %s", i, r)
		}
		if !strings.Contains(r, "environ: head: cannot") {
			t.Errorf("tool %d read the agent's environment: %s", i, r)
		}
	}
}
