// Command initrss measures how much resident memory the packages that
// atomic links cost before the program does anything: for each of a set
// of dependency groups it builds a program that only imports the group
// (blank imports, so that their package initialisation runs) and reports
// the program's peak RSS, split into anonymous and file-backed memory,
// with the executable evicted from the page cache before each run.
//
// Run from the module root: go run ./bench/initrss [-runs 3]
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/atomic-go/atomic/bench/internal/benchkit"
)

// group is one program to build: a name and the packages it imports.
type group struct {
	name string
	pkgs []string
}

var groups = []group{
	{"empty program", nil},
	{"net/http + crypto/tls", []string{"net/http", "crypto/tls"}},
	{"viper (settings)", []string{"github.com/spf13/viper"}},
	{"goldmark (HTML export)", []string{"github.com/yuin/goldmark", "github.com/yuin/goldmark/extension"}},
	{"anthropic-sdk-go", []string{"github.com/anthropics/anthropic-sdk-go"}},
	{"openai-go", []string{"github.com/openai/openai-go/v3"}},
	{"genai (Gemini)", []string{"google.golang.org/genai"}},
	{"goja + esbuild (scripts)", []string{"github.com/dop251/goja", "github.com/dop251/goja_nodejs/require", "github.com/evanw/esbuild/pkg/api"}},
	{"go-plugin + gRPC (plugins)", []string{"github.com/hashicorp/go-plugin", "google.golang.org/grpc"}},
	{"all of atomic (host/app + host/rpc)", []string{"github.com/atomic-go/atomic/host/app", "github.com/atomic-go/atomic/host/rpc"}},
}

// program is the source of a measuring program: it prints its own peak
// and current RSS split (to stderr) as soon as main starts, when every
// imported package has been initialised and nothing else has run.
const program = `package main

import (
	"os"
%s)

func main() {
	b, _ := os.ReadFile("/proc/self/status")
	os.Stderr.Write(b)
}
`

func main() {
	benchkit.Name = "initrss"
	runs := flag.Int("runs", 3, "runs of each program (the median is shown)")
	flag.Parse()

	// The programs must live inside the module to resolve its imports;
	// a leading underscore keeps ./... patterns away from them.
	dir, err := os.MkdirTemp(".", "_initrss-")
	benchkit.Check(err)
	defer os.RemoveAll(dir)

	fmt.Printf("machine: %s\n\n", benchkit.CPUModel())
	fmt.Println("| imports | executable | peak RSS (VmHWM) | anonymous | file-backed |")
	fmt.Println("|---|---|---|---|---|")
	for i, g := range groups {
		src := filepath.Join(dir, fmt.Sprintf("p%d", i))
		benchkit.Check(os.MkdirAll(src, 0o755))
		var imports strings.Builder
		for _, p := range g.pkgs {
			fmt.Fprintf(&imports, "\t_ %q\n", p)
		}
		benchkit.Check(os.WriteFile(filepath.Join(src, "main.go"), []byte(fmt.Sprintf(program, imports.String())), 0o644))
		bin := filepath.Join(dir, fmt.Sprintf("p%d.bin", i))
		benchkit.Check(benchkit.Build(bin, "./"+src))
		fi, err := os.Stat(bin)
		benchkit.Check(err)
		var hwm, anon, file []int64
		for r := 0; r < *runs; r++ {
			st := measure(bin)
			hwm, anon, file = append(hwm, st["VmHWM"]), append(anon, st["RssAnon"]), append(file, st["RssFile"])
		}
		fmt.Printf("| %s | %.1f MB | %.1f MB | %.1f MB | %.1f MB |\n", g.name, float64(fi.Size())/1e6,
			mb(benchkit.Median(hwm)), mb(benchkit.Median(anon)), mb(benchkit.Median(file)))
	}
}

// measure evicts bin from the page cache, runs it and parses the status
// it printed (values in KiB).
func measure(bin string) map[string]int64 {
	f, err := os.Open(bin)
	benchkit.Check(err)
	benchkit.Check(unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED))
	f.Close()
	var out strings.Builder
	cmd := exec.Command(bin)
	cmd.Stderr = &out
	benchkit.Check(cmd.Run())
	st := map[string]int64{}
	for _, line := range strings.Split(out.String(), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		var n int64
		if _, err := fmt.Sscan(strings.TrimSuffix(strings.TrimSpace(v), " kB"), &n); err == nil {
			st[k] = n
		}
	}
	for _, k := range []string{"VmHWM", "RssAnon", "RssFile"} {
		if _, ok := st[k]; !ok {
			benchkit.Fail("no %s in the status printed by %s", k, bin)
		}
	}
	return st
}

func mb(kib int64) float64 { return float64(kib) / 1024 }
