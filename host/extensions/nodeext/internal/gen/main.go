// Command gen builds the Node extension host (../../node) into ../../dist:
// it installs the pinned npm modules the host program imports (npm ci,
// from node/package-lock.json) and bundles them, the host program, its
// module hooks and the plugin protocol's .proto files with esbuild into
// two self-contained files that the agent embeds. Run by `go generate`
// in host/extensions/nodeext; .ci/run checks that dist/ is up to date.
package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/evanw/esbuild/pkg/api"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "nodeext gen:", err)
		os.Exit(1)
	}
}

func run() error {
	src, err := filepath.Abs("node")
	if err != nil {
		return err
	}
	if _, err := os.Stat(filepath.Join(src, "node_modules", ".package-lock.json")); err != nil {
		cmd := exec.Command("npm", "ci", "--ignore-scripts", "--no-audit", "--no-fund")
		cmd.Dir = src
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("npm ci: %w", err)
		}
	}
	res := api.Build(api.BuildOptions{
		EntryPoints:   []string{filepath.Join(src, "host.mjs"), filepath.Join(src, "loader.mjs")},
		Outdir:        filepath.Join(src, "..", "dist"),
		OutExtension:  map[string]string{".js": ".mjs"},
		AbsWorkingDir: src,
		Bundle:        true,
		Write:         true,
		Platform:      api.PlatformNode,
		Format:        api.FormatESModule,
		Engines:       []api.Engine{{Name: api.EngineNode, Version: "20"}},
		Loader:        map[string]api.Loader{".proto": api.LoaderText},
		// CommonJS dependencies (grpc-js) require Node built-ins.
		Banner:            map[string]string{"js": `import { createRequire as __atomicCreateRequire } from "node:module"; const require = __atomicCreateRequire(import.meta.url);`},
		MinifySyntax:      true,
		MinifyWhitespace:  true,
		LegalComments:     api.LegalCommentsEndOfFile,
		Charset:           api.CharsetUTF8,
		LogLevel:          api.LogLevelWarning,
		MainFields:        []string{"module", "main"},
		Conditions:        []string{"node", "import"},
		TreeShaking:       api.TreeShakingTrue,
		IgnoreAnnotations: false,
	})
	if len(res.Errors) > 0 {
		return fmt.Errorf("esbuild: %s", res.Errors[0].Text)
	}
	return nil
}
