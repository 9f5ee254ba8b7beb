package arch

import (
	"bufio"
	"bytes"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/atomic-go/atomic/internal/e2e"
)

// initBudget is what one package of the module may allocate while it is
// initialised. Every agent process pays for every package's initialisation
// before it reads a line (in memory that stays resident: 10 agents pay ten
// times), so tables, compiled expressions and parsers are built on first
// use (sync.OnceValue) instead. The generated protobuf code registers its
// descriptors at init and is exempt.
const initBudget = 8 << 10

// TestPackageInitIsCheap runs the agent with GODEBUG=inittrace=1 and
// checks the bytes each of the module's packages allocates at init.
func TestPackageInitIsCheap(t *testing.T) {
	cmd := exec.Command(e2e.Binary(t), "--version")
	cmd.Env = append(cmd.Environ(), "GODEBUG=inittrace=1")
	var trace bytes.Buffer
	cmd.Stderr = &trace
	if err := cmd.Run(); err != nil {
		t.Fatalf("atomic --version: %v\n%s", err, trace.String())
	}
	// "init <package> @<t> ms, <t> ms clock, <bytes> bytes, <n> allocs"
	seen := 0
	sc := bufio.NewScanner(&trace)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 11 || f[0] != "init" || f[8] != "bytes," {
			continue
		}
		seen++
		pkg := f[1]
		if !strings.HasPrefix(pkg, module+"/") || strings.HasPrefix(pkg, module+"/proto/") {
			continue
		}
		n, err := strconv.Atoi(f[7])
		if err != nil {
			t.Fatalf("cannot read %q", sc.Text())
		}
		if n > initBudget {
			t.Errorf("%s allocates %d bytes (%s allocations) at init, more than %d: build its tables on first use", pkg, n, f[9], initBudget)
		}
	}
	if seen == 0 {
		t.Fatalf("no inittrace lines in the output:\n%s", trace.String())
	}
}
