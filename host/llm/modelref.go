package llm

import (
	"fmt"
	"path"
	"sort"
	"strings"
	"sync"

	"golang.org/x/text/collate"
	"golang.org/x/text/language"
)

// How a model reference ("sonnet", "anthropic/claude-sonnet-4-5:high",
// "gpt-5") is resolved, as pi 1.6 resolves --model, --models and the
// enabledModels setting: an exact id (any case), then provider/id, then a
// fragment of an id or name; a trailing ":level" is a thinking level.

// SuffixRule says what a trailing ":text" of a reference is.
type SuffixRule int

const (
	// SuffixNone: a colon is part of the id.
	SuffixNone SuffixRule = iota
	// SuffixStrict: ":level" with a valid level is a thinking level;
	// anything else stays part of the id (and usually fails to match).
	SuffixStrict
	// SuffixLenient: as strict, but an invalid level is dropped with a
	// warning and the rest resolved.
	SuffixLenient
)

// RefRequest is one reference to resolve.
type RefRequest struct {
	Text string
	// Provider, when set, restricts the lookup to that provider (any case).
	Provider string
	Suffix   SuffixRule
	// Fuzzy allows a fragment of an id or name to match.
	Fuzzy bool
}

// RefStatus is the outcome of a resolution.
type RefStatus int

const (
	RefNotFound RefStatus = iota
	RefResolved
	RefAmbiguous
)

// RefResult is what a reference resolved to.
type RefResult struct {
	Status RefStatus
	Model  Model // RefResolved
	// Candidates are the matching models of several providers (RefAmbiguous);
	// UsableCount says how many of them have credentials.
	Candidates  []Model
	UsableCount int
	// ThinkingLevel is the ":level" suffix, when one was given.
	ThinkingLevel string
	// Warning names a dropped invalid suffix (SuffixLenient).
	Warning string
	// Target is set when nothing matched but the reference named a known
	// provider ("openai/gpt-new", or Provider): a custom id there.
	Target *RefTarget
}

// RefTarget is a model id that is not in the catalog, on a known provider.
type RefTarget struct {
	Provider string
	// ProviderModels are that provider's catalog models, the one to base a
	// custom model on first.
	ProviderModels []Model
	// ModelText is the text after the provider; ModelID the same without a
	// valid thinking suffix, which ThinkingLevel then holds.
	ModelText, ModelID, ThinkingLevel string
}

// ResolveRef resolves a reference against models. usable says whether a
// provider has credentials; it only breaks ties between providers, so a
// single match resolves without credentials.
func ResolveRef(req RefRequest, models []Model, usable func(provider string) bool) RefResult {
	if usable == nil {
		usable = func(string) bool { return true }
	}
	text := strings.TrimSpace(req.Text)
	if text == "" {
		return RefResult{}
	}
	constraint := strings.ToLower(req.Provider)
	pool := models
	if constraint != "" {
		pool = nil
		for _, m := range models {
			if strings.ToLower(m.Provider) == constraint {
				pool = append(pool, m)
			}
		}
	}
	res := resolveText(text, req, pool, usable)
	if res.Status != RefNotFound {
		return res
	}
	provider, modelText, split := splitProvider(text, pool)
	var anchor *Model
	for i := range pool {
		if (constraint != "" && i == 0) || (constraint == "" && split && pool[i].Provider == provider) {
			anchor = &pool[i]
			break
		}
	}
	if anchor == nil {
		return res
	}
	if !split {
		modelText = text
	}
	t := &RefTarget{Provider: anchor.Provider, ModelText: modelText, ModelID: modelText}
	t.ProviderModels = append(t.ProviderModels, *anchor)
	for i := range pool {
		if pool[i].Provider == anchor.Provider && &pool[i] != anchor {
			t.ProviderModels = append(t.ProviderModels, pool[i])
		}
	}
	if req.Suffix != SuffixNone {
		if base, level, ok := splitThinking(modelText); ok {
			t.ModelID, t.ThinkingLevel = base, level
		}
	}
	res.Target = t
	return res
}

func splitThinking(text string) (base, level string, ok bool) {
	i := strings.LastIndex(text, ":")
	if i < 0 || !IsThinkingLevel(text[i+1:]) {
		return "", "", false
	}
	return text[:i], text[i+1:], true
}

// splitProvider splits "provider/rest" on the longest known provider id
// (provider ids may contain "/" themselves).
func splitProvider(text string, models []Model) (provider, rest string, ok bool) {
	lower := strings.ToLower(text)
	for _, m := range models {
		prefix := strings.ToLower(strings.TrimSpace(m.Provider))
		if prefix == "" || (ok && len(provider) >= len(m.Provider)) || len(prefix) > len(lower) {
			continue
		}
		slash := strings.Index(lower[len(prefix):], "/")
		if slash < 0 {
			continue
		}
		slash += len(prefix)
		if strings.TrimSpace(lower[:slash]) != prefix {
			continue
		}
		if r := strings.TrimSpace(text[slash+1:]); r != "" {
			provider, rest, ok = m.Provider, r, true
		}
	}
	return provider, rest, ok
}

func resolveText(text string, req RefRequest, pool []Model, usable func(string) bool) RefResult {
	if r, ok := selectReference(text, pool, req.Fuzzy, usable); ok {
		return r
	}
	if req.Fuzzy {
		if r, ok := selectFuzzy(fuzzyMatches(text, pool), usable); ok {
			return r
		}
	}
	if req.Suffix == SuffixNone {
		return RefResult{}
	}
	if base, level, ok := splitThinking(text); ok {
		inner := resolveText(base, req, pool, usable)
		if inner.Status == RefNotFound {
			return inner
		}
		if inner.Warning == "" {
			inner.ThinkingLevel = level
		} else {
			inner.ThinkingLevel = ""
		}
		return inner
	}
	if req.Suffix == SuffixStrict {
		return RefResult{}
	}
	i := strings.LastIndex(text, ":")
	if i < 0 {
		return RefResult{}
	}
	inner := resolveText(text[:i], req, pool, usable)
	if inner.Status == RefNotFound {
		return inner
	}
	inner.ThinkingLevel = ""
	inner.Warning = fmt.Sprintf("Invalid thinking level %q in pattern %q. Using default instead.", text[i+1:], text)
	return inner
}

// selectReference: "provider/rest" names that provider when it can serve
// the request; the whole text may also be an id on another provider.
func selectReference(text string, pool []Model, fuzzy bool, usable func(string) bool) (RefResult, bool) {
	lower := strings.ToLower(text)
	var raw []Model
	for _, m := range pool {
		if strings.ToLower(m.ID) == lower {
			raw = append(raw, m)
		}
	}
	var named *Model
	if provider, rest, ok := splitProvider(text, pool); ok {
		var pm []Model
		for _, m := range pool {
			if m.Provider == provider {
				pm = append(pm, m)
			}
		}
		lrest := strings.ToLower(rest)
		for i := range pm {
			if strings.ToLower(pm[i].ID) == lrest {
				named = &pm[i]
				break
			}
		}
		if named == nil {
			for i := range raw {
				if raw[i].Provider == provider {
					named = &raw[i]
					break
				}
			}
		}
		if named == nil && fuzzy {
			if b, ok := bestFuzzy(fuzzyMatches(rest, pm)); ok {
				named = &b
			}
		}
	}
	var others []Model
	for _, m := range raw {
		if named == nil || !sameModel(m, *named) {
			others = append(others, m)
		}
	}
	candidates := others
	if named != nil {
		candidates = append([]Model{*named}, others...)
	}
	if len(candidates) == 0 {
		return RefResult{}, false
	}
	if providerCount(candidates) == 1 {
		return RefResult{Status: RefResolved, Model: candidates[0]}, true
	}
	if named != nil && usable(named.Provider) {
		return RefResult{Status: RefResolved, Model: *named}, true
	}
	var usableOthers []Model
	for _, m := range others {
		if usable(m.Provider) {
			usableOthers = append(usableOthers, m)
		}
	}
	if len(usableOthers) == 1 {
		return RefResult{Status: RefResolved, Model: usableOthers[0]}, true
	}
	if len(usableOthers) == 0 && named != nil {
		return RefResult{Status: RefResolved, Model: *named}, true
	}
	return RefResult{Status: RefAmbiguous, Candidates: candidates, UsableCount: len(usableOthers)}, true
}

func sameModel(a, b Model) bool { return a.Provider == b.Provider && a.ID == b.ID }

func providerCount(ms []Model) int {
	seen := map[string]bool{}
	for _, m := range ms {
		seen[m.Provider] = true
	}
	return len(seen)
}

func fuzzyMatches(text string, models []Model) []Model {
	lower := strings.ToLower(text)
	var out []Model
	for _, m := range models {
		if strings.Contains(strings.ToLower(m.ID), lower) || (m.Name != "" && strings.Contains(strings.ToLower(m.Name), lower)) {
			out = append(out, m)
		}
	}
	return out
}

func selectFuzzy(matches []Model, usable func(string) bool) (RefResult, bool) {
	if len(matches) == 0 {
		return RefResult{}, false
	}
	pool := matches
	usableCount := 0
	if providerCount(matches) > 1 {
		var u []Model
		for _, m := range matches {
			if usable(m.Provider) {
				u = append(u, m)
			}
		}
		if len(u) > 0 {
			pool, usableCount = u, len(u)
		}
	}
	best, ok := bestFuzzy(pool)
	if !ok {
		return RefResult{}, false
	}
	// The same id on several providers is not decided by catalog order.
	var tied []Model
	for _, m := range pool {
		if m.ID == best.ID {
			tied = append(tied, m)
		}
	}
	if providerCount(tied) == 1 {
		return RefResult{Status: RefResolved, Model: best}, true
	}
	if usableCount > 0 {
		usableCount = len(tied)
	}
	return RefResult{Status: RefAmbiguous, Candidates: tied, UsableCount: usableCount}, true
}

// dated reports whether an id ends in "-" and eight digits (a dated
// version such as "-20250929").
func dated(id string) bool {
	if len(id) < 9 || id[len(id)-9] != '-' {
		return false
	}
	for _, c := range id[len(id)-8:] {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// bestFuzzy prefers aliases ("claude-sonnet-4-5") over dated versions
// ("claude-sonnet-4-5-20250929"), then the last id in collation order
// (the newest, by the usual naming).
func bestFuzzy(matches []Model) (Model, bool) {
	var aliases []Model
	for _, m := range matches {
		if strings.HasSuffix(m.ID, "-latest") || !dated(m.ID) {
			aliases = append(aliases, m)
		}
	}
	pool := matches
	if len(aliases) > 0 {
		pool = aliases
	}
	if len(pool) == 0 {
		return Model{}, false
	}
	sorted := append([]Model(nil), pool...)
	sort.SliceStable(sorted, func(i, j int) bool { return CompareText(sorted[j].ID, sorted[i].ID) < 0 })
	return sorted[0], true
}

// CompareText orders texts as JavaScript's localeCompare does without a
// locale (the root collation), which is the order pi sorts ids and
// providers in.
func CompareText(a, b string) int {
	collator.Lock()
	defer collator.Unlock()
	if collator.c == nil {
		collator.c = collate.New(language.Und)
	}
	return collator.c.CompareString(a, b)
}

// collator is the root collation; a Collator is not safe for concurrent use.
var collator struct {
	sync.Mutex
	c *collate.Collator
}

// ScopedModel is a model of a cycling scope (--models, enabledModels) with
// the thinking level its pattern gave.
type ScopedModel struct {
	Model         Model
	ThinkingLevel string
}

// ResolveScope resolves scope patterns as pi 1.6's --models and
// enabledModels: exact ids, fragments, case-insensitive globs over
// "provider/id" or "id", each with an optional ":level". Every model given
// counts as usable, so a pattern several providers offer adds each, with a
// warning. Warnings name patterns that match nothing.
func ResolveScope(patterns []string, models []Model) ([]ScopedModel, []string) {
	var out []ScopedModel
	var warnings []string
	add := func(m Model, level string) {
		for _, s := range out {
			if sameModel(s.Model, m) {
				return
			}
		}
		out = append(out, ScopedModel{Model: m, ThinkingLevel: level})
	}
	noMatch := func(p string) { warnings = append(warnings, fmt.Sprintf("No models match pattern %q", p)) }
	ambiguous := func(p string, cands []Model) {
		seen := map[string]bool{}
		var provs []string
		for _, m := range cands {
			if !seen[m.Provider] {
				seen[m.Provider] = true
				provs = append(provs, m.Provider)
			}
		}
		sort.Slice(provs, func(i, j int) bool { return CompareText(provs[i], provs[j]) < 0 })
		warnings = append(warnings, fmt.Sprintf("Pattern %q matches several providers: %s. Use provider/id to choose one.", p, strings.Join(provs, ", ")))
	}
	all := func(string) bool { return true }
	for _, pat := range patterns {
		if strings.ContainsAny(pat, "*?[") {
			glob, level := pat, ""
			if base, l, ok := splitThinking(pat); ok {
				glob, level = base, l
			}
			// Ids such as "model[1m]" are not globs.
			exact := ResolveRef(RefRequest{Text: glob, Suffix: SuffixNone}, models, all)
			var matches []Model
			switch exact.Status {
			case RefResolved:
				matches = []Model{exact.Model}
			case RefAmbiguous:
				matches = exact.Candidates
				ambiguous(pat, matches)
			default:
				lg := strings.ToLower(glob)
				for _, m := range models {
					ok1, _ := path.Match(lg, strings.ToLower(m.Provider+"/"+m.ID))
					ok2, _ := path.Match(lg, strings.ToLower(m.ID))
					if ok1 || ok2 {
						matches = append(matches, m)
					}
				}
			}
			if len(matches) == 0 {
				noMatch(pat)
			}
			for _, m := range matches {
				add(m, level)
			}
			continue
		}
		r := ResolveRef(RefRequest{Text: pat, Suffix: SuffixLenient, Fuzzy: true}, models, all)
		switch r.Status {
		case RefNotFound:
			noMatch(pat)
			continue
		case RefAmbiguous:
			if r.Warning != "" {
				warnings = append(warnings, r.Warning)
			}
			ambiguous(pat, r.Candidates)
			for _, m := range r.Candidates {
				add(m, r.ThinkingLevel)
			}
		default:
			if r.Warning != "" {
				warnings = append(warnings, r.Warning)
			}
			add(r.Model, r.ThinkingLevel)
		}
	}
	return out, warnings
}
