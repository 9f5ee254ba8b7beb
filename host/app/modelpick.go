package app

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/atomic-go/atomic/host/llm"
	"github.com/atomic-go/atomic/internal/fuzzy"
)

// selectInitialModel picks the model a run starts with, as pi 1.6 does:
// --model (with --provider as a filter), else the first model of the
// scope (--models or enabledModels; the saved default when it is in the
// scope) for a new session, else the settings' default, else the first
// available model, else faux.
func (rt *Runtime) selectInitialModel(quiet bool) error {
	o := rt.opts
	level := rt.settings.DefaultThinkingLevel
	scoped, warnings := rt.scope()
	for _, w := range warnings {
		if !quiet {
			rt.log.Warn(w)
		}
	}
	switch {
	case o.Provider != "" && o.Model == "":
		return fmt.Errorf("--provider requires --model (for example: --provider %s --model <pattern>)", o.Provider)
	case o.Model != "":
		m, lvl, err := rt.resolveCLIModel(o.Provider, o.Model, o.ThinkingLevel != "")
		if err != nil {
			return err
		}
		rt.model = &m
		if lvl != "" {
			level = lvl
		}
	case len(scoped) > 0 && !o.Continue && o.SessionPath == "" && o.Fork == "":
		pick := scoped[0]
		for _, s := range scoped {
			if s.Model.Provider == rt.settings.DefaultProvider && s.Model.ID == rt.settings.DefaultModel {
				pick = s
				break
			}
		}
		m := pick.Model
		rt.model = &m
		if pick.ThinkingLevel != "" {
			level = pick.ThinkingLevel
		}
	default:
		if m, lvl, ok := rt.resolveModel(rt.settings.DefaultProvider, rt.settings.DefaultModel); ok {
			rt.model = &m
			if lvl != "" {
				level = lvl
			}
		} else if avail := rt.catalog.Available(); len(avail) > 0 {
			m := avail[0]
			rt.model = &m
		}
	}
	if o.ThinkingLevel != "" {
		level = o.ThinkingLevel
	}
	if !llm.IsThinkingLevel(level) {
		level = llm.ThinkingMedium
	}
	rt.thinking = llm.ClampThinkingLevel(rt.model, level)
	rt.prov.wantThinking = level
	return nil
}

// resolveCLIModel resolves --model (and --provider) over every model of
// the catalog, credentials or not, as pi 1.6 resolves them: an exact id,
// provider/id, or a fragment of an id or name, with an optional
// ":level"; credentials only choose between providers. An id the catalog
// does not have on a known provider ("openai/gpt-new") is used as a
// custom id of that provider, with a warning. explicitThinking (--thinking
// given) keeps a ":suffix" of such a custom id as part of the id.
func (rt *Runtime) resolveCLIModel(provider, pattern string, explicitThinking bool) (llm.Model, string, error) {
	rt.reloadModels(false)
	models := rt.catalog.Models()
	if len(models) == 0 {
		return llm.Model{}, "", errors.New("no models available: check the installation or add models to models.json")
	}
	if provider != "" {
		known := ""
		for _, m := range models {
			if strings.EqualFold(m.Provider, provider) {
				known = m.Provider
				break
			}
		}
		if known == "" {
			return llm.Model{}, "", unknownModel{fmt.Errorf("unknown provider %q (providers: %s; atomic --list-models lists the models)", provider, strings.Join(providerIDs(models), ", "))}
		}
		provider = known
	}
	r := llm.ResolveRef(llm.RefRequest{Text: pattern, Provider: provider, Suffix: llm.SuffixStrict, Fuzzy: true}, models, rt.catalog.Usable)
	switch r.Status {
	case llm.RefResolved:
		return r.Model, r.ThinkingLevel, nil
	case llm.RefAmbiguous:
		names := make([]string, len(r.Candidates))
		for i, m := range r.Candidates {
			names[i] = m.Provider + "/" + m.ID
		}
		sort.Slice(names, func(i, j int) bool { return llm.CompareText(names[i], names[j]) < 0 })
		hint := "More than one matching provider has credentials."
		if r.UsableCount == 0 {
			hint = "No matching provider has credentials."
		}
		return llm.Model{}, "", fmt.Errorf("model %q is ambiguous across providers: %s. %s Use --provider or provider/model", pattern, strings.Join(names, ", "), hint)
	}
	if r.Target == nil {
		msg := fmt.Sprintf("model %q not found", pattern)
		if near := closestModels(pattern, models, 3); len(near) > 0 {
			msg += "; closest: " + strings.Join(near, ", ")
		}
		return llm.Model{}, "", unknownModel{errors.New(msg + " (atomic --list-models lists the models)")}
	}
	t := r.Target
	id, lvl := t.ModelID, t.ThinkingLevel
	if explicitThinking {
		id, lvl = t.ModelText, ""
	}
	m := t.ProviderModels[0]
	m.ID, m.Name = id, id
	if lvl != "" && lvl != llm.ThinkingOff {
		m.Reasoning = true
	}
	rt.log.Warn(fmt.Sprintf("Model %q not found for provider %q. Using custom model id.", id, t.Provider))
	return m, lvl, nil
}

// unknownModel is a --model (or --provider) the catalogue does not have:
// an extension may still register its provider.
type unknownModel struct{ error }

func (e unknownModel) Unwrap() error { return e.error }

func providerIDs(models []llm.Model) []string {
	seen := map[string]bool{}
	var out []string
	for _, m := range models {
		if !seen[m.Provider] {
			seen[m.Provider] = true
			out = append(out, m.Provider)
		}
	}
	sort.Slice(out, func(i, j int) bool { return llm.CompareText(out[i], out[j]) < 0 })
	return out
}

// closestModels names up to n models whose "provider/id" best match the
// pattern in the pickers' fuzzy order, or, when none matches that way,
// share the longest run of characters with it.
func closestModels(pattern string, models []llm.Model, n int) []string {
	full := func(m llm.Model) string { return m.Provider + "/" + m.ID }
	hits := fuzzy.Filter(models, pattern, full)
	var out []string
	for _, m := range hits {
		if len(out) == n {
			break
		}
		out = append(out, full(m))
	}
	if len(out) > 0 {
		return out
	}
	type cand struct {
		name string
		run  int
	}
	var cs []cand
	lp := strings.ToLower(pattern)
	for _, m := range models {
		if r := longestCommonRun(lp, strings.ToLower(m.ID)); r >= 3 {
			cs = append(cs, cand{full(m), r})
		}
	}
	sort.SliceStable(cs, func(i, j int) bool { return cs[i].run > cs[j].run })
	for _, c := range cs {
		if len(out) == n {
			break
		}
		out = append(out, c.name)
	}
	return out
}

func longestCommonRun(a, b string) int {
	best := 0
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			if a[i-1] == b[j-1] {
				cur[j] = prev[j-1] + 1
				best = max(best, cur[j])
			} else {
				cur[j] = 0
			}
		}
		prev, cur = cur, prev
	}
	return best
}

// ListModels returns the available models (credentials present), filtered
// by a fuzzy search over "provider id" when search is given (best first),
// else sorted by provider and id: what --list-models prints.
func (rt *Runtime) ListModels(search string) []llm.Model {
	avail := rt.AvailableModels()
	if search != "" {
		avail = fuzzy.Filter(avail, search, func(m llm.Model) string { return m.Provider + " " + m.ID })
	}
	sort.SliceStable(avail, func(i, j int) bool {
		if c := llm.CompareText(avail[i].Provider, avail[j].Provider); c != 0 {
			return c < 0
		}
		return llm.CompareText(avail[i].ID, avail[j].ID) < 0
	})
	return avail
}
