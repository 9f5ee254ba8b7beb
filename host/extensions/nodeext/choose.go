package nodeext

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/atomic-go/atomic/host/extensions"
	"github.com/atomic-go/atomic/host/extensions/jsext"
	"github.com/atomic-go/atomic/host/hooks"
)

// Chooser runs each script extension in goja (jsext) or in Node: the
// "runtime" of the extension's settings entry, else Default (the
// extensionRuntime setting), else "auto".
//
// Auto runs an extension in Node when its import graph (esbuild's) imports
// from outside its files a module goja does not provide; otherwise it
// tries goja, and when the load fails there on something goja lacks and
// Node has (fallback.go: a global such as Intl, a built-in module required
// at run time, syntax goja cannot parse, a function of Node's fs goja
// leaves out), the goja attempt is disposed of and the extension loaded in
// Node, without an error for the user; that choice is remembered for the
// extension's version (choicecache.go), so the next start loads it in Node
// directly. Without Node, the extension fails to load naming what goja
// lacks and that Node would run it. get_extensions names the runtime and
// why (RuntimeReason).
type Chooser struct {
	Goja    extensions.Runtime
	Node    *Runtime
	Default string
}

// Accepts implements extensions.Runtime.
func (c *Chooser) Accepts(s *extensions.Spec) bool { return s.Kind == extensions.KindScript }

// Choice is the runtime choice in effect for spec.
func (c *Chooser) Choice(spec extensions.Spec) string {
	for _, s := range []string{spec.Options.Runtime, c.Default} {
		if s != "" && s != extensions.RuntimeAuto {
			return s
		}
	}
	return extensions.RuntimeAuto
}

// choiceReason says who chose a runtime that was not auto's choice.
func (c *Chooser) choiceReason(spec extensions.Spec, choice string) string {
	if spec.Options.Runtime != "" && spec.Options.Runtime != extensions.RuntimeAuto {
		return fmt.Sprintf("its settings entry asks for %q", choice)
	}
	return fmt.Sprintf("extensionRuntime is %q", choice)
}

// Load implements extensions.Runtime.
func (c *Chooser) Load(ctx context.Context, spec extensions.Spec, host extensions.Host) (extensions.Extension, error) {
	switch choice := c.Choice(spec); choice {
	case extensions.RuntimeAuto:
	case extensions.RuntimeGoja:
		return c.loadGoja(ctx, spec, host, c.choiceReason(spec, choice))
	case extensions.RuntimeNode:
		return withReason(c.Node.Load(ctx, spec, host))(c.choiceReason(spec, choice))
	default:
		return nil, fmt.Errorf("unknown extension runtime %q: use \"auto\", \"goja\" or \"node\"", choice)
	}
	g := c.Node.analyze(spec.Entry(), func(n string) bool { return jsext.ProvidesModule(n) || Provides(n) })
	if need := GojaLacks(g); len(need) > 0 {
		if err := c.Node.Available(); err != nil {
			return nil, fmt.Errorf("%s needs Node.js: it uses %s, which atomic's built-in script runtime does not provide; installing Node.js %d.%d or newer would run it (%v)",
				spec.Entry(), strings.Join(need, ", "), MinNode[0], MinNode[1], err)
		}
		if len(need) > 3 {
			need = append(need[:3:3], fmt.Sprintf("%d more", len(need)-3))
		}
		return withReason(c.Node.LoadGraph(ctx, spec, host, g))("auto: it uses " + strings.Join(need, ", ") + ", which the built-in runtime (goja) does not provide")
	}
	store := c.Node.choices()
	if why, ok := store.recall(g); ok && c.Node.Available() == nil {
		c.Node.logger().Debug("extension runtime: node, remembered", "extension", spec.Path, "reason", why)
		ext, err := c.Node.LoadGraph(ctx, spec, host, g)
		if err != nil {
			store.forget(g.Entry) // the next start tries goja again
		}
		return withReason(ext, err)(why + "; remembered from an earlier start of this version")
	}
	ext, err := c.loadGoja(ctx, spec, host, "auto: the built-in runtime (goja) provides everything it uses")
	if err == nil {
		return ext, nil
	}
	lacks := gojaLacked(err, g)
	if lacks == "" {
		return nil, err
	}
	if nerr := c.Node.Available(); nerr != nil {
		return nil, fmt.Errorf("%w; it uses %s, which atomic's built-in script runtime does not provide: installing Node.js %d.%d or newer would run it (%v)",
			err, lacks, MinNode[0], MinNode[1], nerr)
	}
	why := fmt.Sprintf("auto: it uses %s, which the built-in runtime (goja) does not provide (%s)", lacks, firstLine(err.Error()))
	c.Node.logger().Debug("extension runtime: goja lacks what it uses, loading it in node", "extension", spec.Path, "reason", why)
	next, nerr := c.Node.LoadGraph(ctx, spec, host, g)
	if nerr != nil {
		return nil, fmt.Errorf("%w (in Node, where it was loaded because the built-in runtime failed with: %v)", nerr, err)
	}
	store.remember(g, why)
	return withReason(next, nil)(why)
}

// withReason records why the runtime of a loaded extension was chosen
// (get_extensions' runtimeReason).
func withReason(ext extensions.Extension, err error) func(string) (extensions.Extension, error) {
	return func(why string) (extensions.Extension, error) {
		if e, ok := ext.(*extension); ok && err == nil {
			e.reason = why
		}
		return ext, err
	}
}

// clip cuts s to at most n bytes, at a character boundary, marking the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "…"
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return clip(s, 300)
}

// GojaLacks lists what the graph uses that goja does not provide (empty
// when goja can run it): modules from outside the extension's files, and
// import() of anything but its files and goja's modules.
func GojaLacks(g Graph) []string {
	var out []string
	seen := map[string]bool{}
	add := func(s string) {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	for _, imp := range g.External {
		// "<runtime>" is esbuild's own helper module (its require shim),
		// not one the extension imports.
		if imp.Name != "<runtime>" && !jsext.ProvidesModule(imp.Name) {
			add(fmt.Sprintf("the module %q", imp.Name))
		}
	}
	for _, imp := range g.Dynamic {
		if !isRelative(imp.Name) && !jsext.ProvidesModule(imp.Name) && !seen[fmt.Sprintf("the module %q", imp.Name)] {
			add(fmt.Sprintf("import(%q)", imp.Name))
		}
	}
	return out
}

func (c *Chooser) loadGoja(ctx context.Context, spec extensions.Spec, host extensions.Host, why string) (extensions.Extension, error) {
	ext, err := c.Goja.Load(ctx, spec, host)
	if err != nil {
		return nil, err
	}
	return &gojaExtension{Extension: ext, reason: why}, nil
}

// gojaExtension names the runtime of a goja extension.
type gojaExtension struct {
	extensions.Extension
	reason string
}

// RuntimeName implements extensions.RuntimeNamer.
func (g *gojaExtension) RuntimeName() string { return extensions.RuntimeGoja }

// Unwrap implements extensions.Wrapper.
func (g *gojaExtension) Unwrap() extensions.Extension { return g.Extension }

// RuntimeReason implements extensions.RuntimeReasoner.
func (g *gojaExtension) RuntimeReason() string { return g.reason }

// HandleBatch implements hooks.BatchSubscriber.
func (g *gojaExtension) HandleBatch(ctx context.Context, evs []*hooks.Event) []error {
	return hooks.HandleBatch(ctx, g.Extension, evs)
}

// Timeout implements hooks.TimeoutProvider.
func (g *gojaExtension) Timeout(event string) time.Duration {
	if tp, ok := g.Extension.(hooks.TimeoutProvider); ok {
		return tp.Timeout(event)
	}
	return 0
}
