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
// extensionRuntime setting), else "auto". Auto runs an extension in goja
// when everything its import graph (esbuild's) imports from outside its
// files is a module goja provides, otherwise in Node when Node is
// available, otherwise it fails to load naming what goja lacks.
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

// Load implements extensions.Runtime.
func (c *Chooser) Load(ctx context.Context, spec extensions.Spec, host extensions.Host) (extensions.Extension, error) {
	switch choice := c.Choice(spec); choice {
	case extensions.RuntimeAuto:
	case extensions.RuntimeGoja:
		return c.loadGoja(ctx, spec, host)
	case extensions.RuntimeNode:
		return c.Node.Load(ctx, spec, host)
	default:
		return nil, fmt.Errorf("unknown extension runtime %q: use \"auto\", \"goja\" or \"node\"", choice)
	}
	g := c.Node.analyze(spec.Entry(), func(n string) bool { return jsext.ProvidesModule(n) || Provides(n) })
	need := GojaLacks(g)
	if len(need) == 0 {
		return c.loadGoja(ctx, spec, host)
	}
	if err := c.Node.Available(); err != nil {
		return nil, fmt.Errorf("%s needs Node.js: it uses %s, which atomic's built-in script runtime does not provide; installing Node.js %d.%d or newer would run it (%v)",
			spec.Entry(), strings.Join(need, ", "), MinNode[0], MinNode[1], err)
	}
	return c.Node.LoadGraph(ctx, spec, host, g)
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
		if !jsext.ProvidesModule(imp.Name) {
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

func (c *Chooser) loadGoja(ctx context.Context, spec extensions.Spec, host extensions.Host) (extensions.Extension, error) {
	ext, err := c.Goja.Load(ctx, spec, host)
	if err != nil {
		return nil, err
	}
	return &gojaExtension{Extension: ext}, nil
}

// gojaExtension names the runtime of a goja extension.
type gojaExtension struct{ extensions.Extension }

// RuntimeName implements extensions.RuntimeNamer.
func (g *gojaExtension) RuntimeName() string { return extensions.RuntimeGoja }

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
