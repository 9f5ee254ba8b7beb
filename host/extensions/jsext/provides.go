package jsext

// StandIns returns the pi package stand-ins (module name → file) and their
// CommonJS sources (file → source), for runtimes that run the same
// stand-ins elsewhere (the Node runtime evaluates them with a require of
// its own that provides "atomic:internal" and TypeBox).
func StandIns() (modules, sources map[string]string) {
	modules, sources = map[string]string{}, map[string]string{}
	for name, file := range jsModules {
		if !strictModules[file] || file == "typebox.js" {
			continue
		}
		src, err := jsFiles.ReadFile("js/" + file)
		if err != nil {
			continue
		}
		modules[name] = file
		sources[file] = string(src)
	}
	return modules, sources
}

// SharedSources are the built-in sources both script runtimes run as they
// are (file name → CommonJS source): sessionctl.js, the session control
// and stale-context rule of a command's ctx, and ui.js, ctx.ui.
func SharedSources() map[string]string {
	out := map[string]string{}
	for _, f := range []string{"api.js", "sessionctl.js", "ui.js"} {
		if src, err := jsFiles.ReadFile("js/" + f); err == nil {
			out[f] = string(src)
		}
	}
	return out
}
