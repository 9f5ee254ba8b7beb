// Command startup-resources measures what discovering skills and prompt
// templates adds to start-up, with no resources on disk and with many (500
// skills and 200 templates by default, half of each in the user's agent
// directory and half in the project). It starts `atomic --mode rpc`, sends
// get_state and get_commands at once, and records the time until each
// response arrives and the CPU time (user+system) of the whole process.
// get_state does not wait for the discovery (it runs in the background);
// get_commands does, so its time includes the full discovery. Runs of the
// cases alternate so that drift affects them alike. A third case has
// -packages installed packages in the user's settings (half npm, half
// git, each installed already, with 2 skills and 2 templates; no
// extensions, whose start is measured by bench/extensions), which
// start-up resolves (host/packages) before the discovery.
//
//	go run ./bench/startup-resources [-runs 40] [-skills 500] [-templates 200] [-packages 10]
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/atomic-go/atomic/bench/internal/benchkit"
)

func main() {
	runs := flag.Int("runs", 40, "measured runs per case")
	warmup := flag.Int("warmup", 3, "unmeasured runs per case first")
	skills := flag.Int("skills", 500, "skills on disk in the loaded case")
	templates := flag.Int("templates", 200, "prompt templates on disk in the loaded case")
	pkgs := flag.Int("packages", 10, "installed packages in the packages case (0: no such case)")
	flag.Parse()
	if err := run(*runs, *warmup, *skills, *templates, *pkgs); err != nil {
		fmt.Fprintln(os.Stderr, "startup-resources:", err)
		os.Exit(1)
	}
}

type scenario struct {
	name string
	home string
	dir  string
	// per run: time to the get_state response, to the get_commands
	// response, and the process's CPU time
	state, commands, cpu []time.Duration
}

func run(runs, warmup, nSkills, nTemplates, nPackages int) error {
	tmp, err := os.MkdirTemp("", "atomic-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	bin, err := benchkit.BuildAtomic(tmp)
	if err != nil {
		return fmt.Errorf("build: %w", err)
	}
	empty, err := makeScenario(tmp, "none", 0, 0)
	if err != nil {
		return err
	}
	loaded, err := makeScenario(tmp, fmt.Sprintf("%d skills + %d templates", nSkills, nTemplates), nSkills, nTemplates)
	if err != nil {
		return err
	}
	cases := []*scenario{empty, loaded}
	if nPackages > 0 {
		withPkgs, err := makePackages(tmp, nPackages)
		if err != nil {
			return err
		}
		cases = append(cases, withPkgs)
	}
	for i := 0; i < warmup+runs; i++ {
		for _, sc := range cases {
			st, cmds, cpu, err := measure(bin, sc)
			if err != nil {
				return fmt.Errorf("%s: %w", sc.name, err)
			}
			if i >= warmup {
				sc.state = append(sc.state, st)
				sc.commands = append(sc.commands, cmds)
				sc.cpu = append(sc.cpu, cpu)
			}
		}
	}
	fmt.Printf("%d runs per case, %d warm-up runs; GOMAXPROCS of the agent = %d CPUs\n", runs, warmup, runtime.NumCPU())
	for _, m := range []struct {
		title string
		get   func(*scenario) []time.Duration
	}{
		{"time from process start to the get_state response", func(s *scenario) []time.Duration { return s.state }},
		{"time from process start to the get_commands response (discovery done)", func(s *scenario) []time.Duration { return s.commands }},
		{"CPU time of the whole process (user+system)", func(s *scenario) []time.Duration { return s.cpu }},
	} {
		fmt.Printf("\n%s\n%-28s %9s %9s %9s %9s\n", m.title, "case", "min", "median", "mean", "p90")
		for _, sc := range cases {
			s := benchkit.Summarize(m.get(sc))
			fmt.Printf("%-28s %9s %9s %9s %9s\n", sc.name, ms(s.Min), ms(s.Median), ms(s.Mean), ms(s.P90))
		}
		a := benchkit.Summarize(m.get(empty))
		for _, sc := range cases[1:] {
			b := benchkit.Summarize(m.get(sc))
			fmt.Printf("%-28s %9s %9s %9s %9s\n", "added: "+sc.name, ms(b.Min-a.Min), ms(b.Median-a.Median), ms(b.Mean-a.Mean), ms(b.P90-a.P90))
		}
	}
	return nil
}

// makeScenario creates a home (with the agent directory) and a project,
// with half of the skills and templates in each.
func makeScenario(tmp, name string, nSkills, nTemplates int) (*scenario, error) {
	base := filepath.Join(tmp, fmt.Sprintf("case-%d-%d", nSkills, nTemplates))
	sc := &scenario{name: name, home: filepath.Join(base, "home"), dir: filepath.Join(base, "project")}
	agentDir := filepath.Join(sc.home, ".atomic", "agent")
	for _, d := range []string{agentDir, filepath.Join(sc.dir, ".git")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, err
		}
	}
	// The project's half is used only in a trusted project.
	if err := write(filepath.Join(agentDir, "settings.json"), `{"defaultProjectTrust":"always"}`); err != nil {
		return nil, err
	}
	body := strings.Repeat("Run the checks, read what they report, and fix the causes one by one. ", 20)
	for i := range nSkills {
		root := filepath.Join(agentDir, "skills")
		if i%2 == 1 {
			root = filepath.Join(sc.dir, ".atomic", "skills")
		}
		name := fmt.Sprintf("skill-%03d", i)
		text := fmt.Sprintf("---\nname: %s\ndescription: Skill number %d. Use it when the task is about area %d of the system, such as its build, tests or deployment.\nlicense: MIT\n---\n\n# %s\n\n%s\n", name, i, i, name, body)
		if err := write(filepath.Join(root, name, "SKILL.md"), text); err != nil {
			return nil, err
		}
	}
	for i := range nTemplates {
		root := filepath.Join(agentDir, "prompts")
		if i%2 == 1 {
			root = filepath.Join(sc.dir, ".atomic", "prompts")
		}
		text := fmt.Sprintf("---\ndescription: Template number %d\nargument-hint: <file> [focus]\n---\nLook at $1 with a focus on ${@:2}. %s\n", i, body)
		if err := write(filepath.Join(root, fmt.Sprintf("tpl-%03d.md", i)), text); err != nil {
			return nil, err
		}
	}
	return sc, nil
}

// makePackages creates a home whose user settings list n packages, all
// installed where atomic install puts them: even ones from npm
// (<agentDir>/npm/node_modules/<name>, a pinned version), odd ones from
// git (<agentDir>/git/<host>/<path> with a .git directory).
func makePackages(tmp string, n int) (*scenario, error) {
	base := filepath.Join(tmp, fmt.Sprintf("case-packages-%d", n))
	sc := &scenario{name: fmt.Sprintf("%d packages", n), home: filepath.Join(base, "home"), dir: filepath.Join(base, "project")}
	agentDir := filepath.Join(sc.home, ".atomic", "agent")
	if err := os.MkdirAll(filepath.Join(sc.dir, ".git"), 0o755); err != nil {
		return nil, err
	}
	body := strings.Repeat("Run the checks, read what they report, and fix the causes one by one. ", 20)
	var sources []string
	for i := range n {
		name := fmt.Sprintf("bench-pkg-%02d", i)
		root := filepath.Join(agentDir, "npm", "node_modules", name)
		src := "npm:" + name + "@1.0.0"
		if i%2 == 1 {
			root = filepath.Join(agentDir, "git", "example.com", "team", name)
			src = "git:example.com/team/" + name
			if err := os.MkdirAll(filepath.Join(root, ".git"), 0o755); err != nil {
				return nil, err
			}
		}
		sources = append(sources, fmt.Sprintf("%q", src))
		files := map[string]string{
			"package.json": `{"name": "` + name + `", "version": "1.0.0", "keywords": ["pi-package"], "pi": {"skills": ["./skills"], "prompts": ["./prompts"]}}`,
		}
		for j := range 2 {
			sk := fmt.Sprintf("%s-skill-%d", name, j)
			files["skills/"+sk+"/SKILL.md"] = fmt.Sprintf("---\nname: %s\ndescription: Skill %d of %s, for its area of the system.\n---\n\n%s\n", sk, j, name, body)
			files[fmt.Sprintf("prompts/%s-tpl-%d.md", name, j)] = fmt.Sprintf("---\ndescription: Template %d of %s\n---\nLook at $1. %s\n", j, name, body)
		}
		for f, text := range files {
			if err := write(filepath.Join(root, f), text); err != nil {
				return nil, err
			}
		}
	}
	settings := `{"defaultProjectTrust":"always", "packages": [` + strings.Join(sources, ", ") + `]}`
	if err := write(filepath.Join(agentDir, "settings.json"), settings); err != nil {
		return nil, err
	}
	return sc, nil
}

func write(path, text string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, []byte(text), 0o644)
}

// measure starts the agent, sends get_state and get_commands at once, and
// returns the times until their responses arrive and the CPU time the
// process used until it exited.
func measure(bin string, sc *scenario) (state, commands, cpu time.Duration, err error) {
	cmd := exec.Command(bin, "--mode", "rpc")
	cmd.Dir = sc.dir
	cmd.Env = []string{"HOME=" + sc.home, "PATH=" + os.Getenv("PATH"), "ATOMIC_CODING_AGENT_DIR=" + filepath.Join(sc.home, ".atomic", "agent")}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return 0, 0, 0, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return 0, 0, 0, err
	}
	cmd.Stderr = io.Discard
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return 0, 0, 0, err
	}
	if _, err := io.WriteString(stdin, `{"id":"s","type":"get_state"}`+"\n"+`{"id":"c","type":"get_commands"}`+"\n"); err != nil {
		return 0, 0, 0, err
	}
	r := bufio.NewReaderSize(stdout, 1<<20)
	for state == 0 || commands == 0 {
		line, rerr := r.ReadString('\n')
		if rerr != nil {
			err = fmt.Errorf("no response: %w", rerr)
			break
		}
		switch {
		case strings.Contains(line, `"command":"get_state","success":true`):
			state = time.Since(start)
		case strings.Contains(line, `"command":"get_commands","success":true`):
			commands = time.Since(start)
		default:
			err = fmt.Errorf("unexpected line %.200q", line)
		}
		if err != nil {
			break
		}
	}
	stdin.Close()
	_ = cmd.Wait()
	if err != nil {
		return 0, 0, 0, err
	}
	ps := cmd.ProcessState
	return state, commands, ps.UserTime() + ps.SystemTime(), nil
}

// ms keeps this program's format, with no space before the unit
// (benchkit.MS has one).
func ms(d time.Duration) string { return fmt.Sprintf("%.1fms", float64(d.Microseconds())/1000) }
