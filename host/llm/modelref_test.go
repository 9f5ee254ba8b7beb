package llm_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/atomic-go/atomic/host/llm"
	"github.com/atomic-go/atomic/internal/fuzzy"
)

// The cases of testdata/modelref/cases.json give pi 1.6's answers
// (pi-1.6.0.json). Record again with Node 22 and pi 1.6.0 installed:
//
//	node testdata/modelref/record.mjs <dir of @earendil-works/pi-coding-agent> > testdata/modelref/pi-1.6.0.json
type refCases struct {
	Models []llm.Model `json:"models"`
	Refs   []struct {
		Text     string    `json:"text"`
		Provider string    `json:"provider"`
		Suffix   string    `json:"suffix"`
		Fuzzy    bool      `json:"fuzzy"`
		Usable   *[]string `json:"usable"`
	} `json:"refs"`
	Scopes  [][]string `json:"scopes"`
	Filters []string   `json:"filters"`
}

type refAnswer struct {
	Status        string   `json:"status"`
	Model         string   `json:"model,omitempty"`
	Candidates    []string `json:"candidates,omitempty"`
	UsableCount   *int     `json:"usableCount,omitempty"`
	ThinkingLevel string   `json:"thinkingLevel,omitempty"`
	Warning       string   `json:"warning,omitempty"`
	Target        *struct {
		Provider      string `json:"provider"`
		First         string `json:"first"`
		ModelText     string `json:"modelText"`
		ModelID       string `json:"modelId"`
		ThinkingLevel string `json:"thinkingLevel,omitempty"`
	} `json:"target,omitempty"`
}

type piAnswers struct {
	Refs   []refAnswer `json:"refs"`
	Scopes []struct {
		Models   [][2]string `json:"models"`
		Warnings []string    `json:"warnings"`
	} `json:"scopes"`
	Filters [][]string `json:"filters"`
}

func loadJSON(t *testing.T, name string, v any) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "modelref", name))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatal(err)
	}
}

func key(m llm.Model) string { return m.Provider + "/" + m.ID }

func TestResolveRefAsPi(t *testing.T) {
	var cases refCases
	var want piAnswers
	loadJSON(t, "cases.json", &cases)
	loadJSON(t, "pi-1.6.0.json", &want)
	if len(want.Refs) != len(cases.Refs) || len(want.Scopes) != len(cases.Scopes) || len(want.Filters) != len(cases.Filters) {
		t.Fatal("pi-1.6.0.json does not answer cases.json: record it again")
	}
	suffix := map[string]llm.SuffixRule{"none": llm.SuffixNone, "strict": llm.SuffixStrict, "lenient": llm.SuffixLenient}
	status := map[llm.RefStatus]string{llm.RefNotFound: "not-found", llm.RefResolved: "resolved", llm.RefAmbiguous: "ambiguous"}
	for i, c := range cases.Refs {
		usable := func(string) bool { return true }
		if c.Usable != nil {
			set := map[string]bool{}
			for _, p := range *c.Usable {
				set[p] = true
			}
			usable = func(p string) bool { return set[p] }
		}
		r := llm.ResolveRef(llm.RefRequest{Text: c.Text, Provider: c.Provider, Suffix: suffix[c.Suffix], Fuzzy: c.Fuzzy}, cases.Models, usable)
		got := refAnswer{Status: status[r.Status], ThinkingLevel: r.ThinkingLevel, Warning: r.Warning}
		if r.Status == llm.RefResolved {
			got.Model = key(r.Model)
		}
		if r.Status == llm.RefAmbiguous {
			for _, m := range r.Candidates {
				got.Candidates = append(got.Candidates, key(m))
			}
			n := r.UsableCount
			got.UsableCount = &n
		}
		if r.Target != nil {
			got.Target = &struct {
				Provider      string `json:"provider"`
				First         string `json:"first"`
				ModelText     string `json:"modelText"`
				ModelID       string `json:"modelId"`
				ThinkingLevel string `json:"thinkingLevel,omitempty"`
			}{r.Target.Provider, key(r.Target.ProviderModels[0]), r.Target.ModelText, r.Target.ModelID, r.Target.ThinkingLevel}
		}
		if !reflect.DeepEqual(got, want.Refs[i]) {
			g, _ := json.Marshal(got)
			w, _ := json.Marshal(want.Refs[i])
			t.Errorf("%q (provider %q, %s, fuzzy %v):\n got %s\nwant %s", c.Text, c.Provider, c.Suffix, c.Fuzzy, g, w)
		}
	}
	for i, patterns := range cases.Scopes {
		scoped, warnings := llm.ResolveScope(patterns, cases.Models)
		got := [][2]string{}
		for _, s := range scoped {
			got = append(got, [2]string{key(s.Model), s.ThinkingLevel})
		}
		w := want.Scopes[i]
		if w.Models == nil {
			w.Models = [][2]string{}
		}
		if !reflect.DeepEqual(got, w.Models) || !reflect.DeepEqual(append([]string{}, warnings...), append([]string{}, w.Warnings...)) {
			t.Errorf("scope %q:\n got %v %q\nwant %v %q", patterns, got, warnings, w.Models, w.Warnings)
		}
	}
	for i, q := range cases.Filters {
		got := []string{}
		for _, m := range fuzzy.Filter(cases.Models, q, func(m llm.Model) string { return m.Provider + " " + m.ID }) {
			got = append(got, key(m))
		}
		w := want.Filters[i]
		if w == nil {
			w = []string{}
		}
		if !reflect.DeepEqual(got, w) {
			t.Errorf("fuzzy filter %q:\n got %v\nwant %v", q, got, w)
		}
	}
}
