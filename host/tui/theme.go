package tui

import (
	"encoding/json"
	"fmt"
	"image/color"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
)

// A theme gives the UI's roles their colours: dark and light are built
// in, others come from <agentDir>/themes/*.json in pi's theme format
// (name, appearance, vars, colors; a colour is "#rgb", "#rrggbb",
// "oklch(L% C H)", "okhsl(H S% L%)", a 256-colour index, a var's name, or
// "" for the terminal's own colour).
type theme struct {
	name  string
	dark  bool
	roles map[string]color.Color // a missing role: the terminal's colour
}

// themeRoles are the roles of pi's theme format the UI draws with.
var themeRoles = []string{
	"accent", "border", "borderAccent", "success", "error", "warning", "muted", "dim", "text", "thinkingText",
	"selectedBg", "userMessageText", "toolTitle", "toolOutput", "mdHeading", "mdLink", "mdCode", "mdCodeBlock",
	"mdQuote", "toolDiffAdded", "toolDiffRemoved",
}

// builtinThemes are ANSI colours, which the terminal's palette renders;
// made on first use.
var builtinThemes = sync.OnceValue(func() map[string]map[string]string {
	return map[string]map[string]string{
		"dark": {
			"accent": "6", "border": "8", "borderAccent": "6", "success": "2", "error": "1", "warning": "3",
			"toolTitle": "3", "mdHeading": "6", "mdLink": "4", "mdCode": "3", "mdCodeBlock": "3",
			"toolDiffAdded": "2", "toolDiffRemoved": "1",
		},
		"light": {
			"accent": "25", "border": "248", "borderAccent": "25", "success": "28", "error": "160", "warning": "130",
			"toolTitle": "130", "mdHeading": "25", "mdLink": "26", "mdCode": "130", "mdCodeBlock": "94",
			"toolDiffAdded": "28", "toolDiffRemoved": "160",
		},
	}
})

func builtinTheme(name string) *theme {
	specs := builtinThemes()[name]
	t := &theme{name: name, dark: name != "light", roles: map[string]color.Color{}}
	for role, spec := range specs {
		t.roles[role] = lipgloss.Color(spec)
	}
	return t
}

// Styles drawn with the theme's colours; set by applyTheme.
var (
	styleUser, styleUserBar, styleDim, styleThinking, styleError, styleToolHead, styleToolOK lipgloss.Style
	styleAccent, styleSelected, styleAdded, styleRemoved, styleRule, styleDialog             lipgloss.Style
	mdHeading, mdCode, mdBlock, mdQuote, mdLink                                              lipgloss.Style
)

// applyTheme sets the styles from t. Without colours (NO_COLOR) the
// selection is shown reversed and dim text faint.
func applyTheme(t *theme, noColor bool) {
	fg := func(st lipgloss.Style, role string) lipgloss.Style {
		if c := t.roles[role]; c != nil && !noColor {
			return st.Foreground(c)
		}
		return st
	}
	faintUnless := func(st lipgloss.Style, role string) lipgloss.Style {
		if c := t.roles[role]; c != nil && !noColor {
			return st.Foreground(c)
		}
		return st.Faint(true)
	}
	base := lipgloss.NewStyle()
	styleUser = fg(base.Bold(true), "userMessageText")
	styleUserBar = fg(base, "accent")
	styleDim = faintUnless(base, "dim")
	styleThinking = faintUnless(base.Italic(true), "thinkingText")
	styleError = fg(base, "error")
	styleToolHead = fg(base.Bold(true), "toolTitle")
	styleToolOK = fg(base, "success")
	styleAccent = fg(base, "accent")
	styleSelected = base.Reverse(true)
	if c := t.roles["selectedBg"]; c != nil && !noColor {
		styleSelected = base.Background(c)
	}
	styleAdded = fg(base, "toolDiffAdded")
	styleRemoved = fg(base, "toolDiffRemoved")
	styleRule = fg(base, "border")
	styleDialog = base.Border(lipgloss.RoundedBorder()).Padding(0, 1)
	if c := t.roles["borderAccent"]; c != nil && !noColor {
		styleDialog = styleDialog.BorderForeground(c)
	}
	mdHeading = fg(base.Bold(true), "mdHeading")
	mdCode = fg(base, "mdCode")
	mdBlock = fg(base, "mdCodeBlock")
	mdQuote = faintUnless(base.Italic(true), "mdQuote")
	mdLink = fg(base.Underline(true), "mdLink")
}

// themeFile is pi's theme JSON.
type themeFile struct {
	Schema     string                     `json:"$schema"`
	Name       string                     `json:"name"`
	Appearance string                     `json:"appearance"`
	Vars       map[string]json.RawMessage `json:"vars"`
	Colors     map[string]json.RawMessage `json:"colors"`
	Export     json.RawMessage            `json:"export"`
}

// loadThemes reads the user's custom themes, <agentDir>/themes/*.json;
// problems are described in the returned warning (a theme with errors is
// left out).
func loadThemes(agentDir string) (map[string]*theme, string) {
	out := map[string]*theme{}
	if agentDir == "" {
		return out, ""
	}
	dir := filepath.Join(agentDir, "themes")
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	sort.Strings(files)
	if problems := addThemes(out, files); len(problems) > 0 {
		return out, "themes (" + dir + "): " + strings.Join(problems, "; ")
	}
	return out, ""
}

// addThemes parses theme files into themes, a name already there (or a
// built-in's) being a problem, as is a file with an error.
func addThemes(themes map[string]*theme, files []string) (problems []string) {
	for _, f := range files {
		t, err := parseThemeFile(f)
		switch {
		case err != nil:
			problems = append(problems, fmt.Sprintf("%s: %v", filepath.Base(f), err))
		case themes[t.name] != nil || t.name == "dark" || t.name == "light":
			problems = append(problems, fmt.Sprintf("%s: a theme named %q exists already", filepath.Base(f), t.name))
		default:
			themes[t.name] = t
		}
	}
	return problems
}

// themeFilesMsg carries the packages' and the project's theme files.
type themeFilesMsg []string

// loadThemeFiles asks the runtime for the packages' and the project's
// themes (it waits for the package resolution, so off the event loop).
func (m *model) loadThemeFiles() tea.Cmd {
	rt := m.rt
	return func() tea.Msg { return themeFilesMsg(rt.ThemeFiles()) }
}

// addThemeFiles adds the packages' and the project's themes and applies
// the theme setting again (it may name one of them); the setting's
// warning, held back until now, is shown if it still names no theme.
func (m *model) addThemeFiles(files []string) {
	problems := addThemes(m.themes, files)
	if len(problems) > 0 {
		m.conv.fail("themes of packages and the project: " + strings.Join(problems, "; "))
	}
	if w := m.useTheme(); w != "" {
		m.conv.fail(w)
	}
}

func parseThemeFile(path string) (*theme, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if len(b) > 1<<20 {
		return nil, fmt.Errorf("larger than 1 MiB")
	}
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	var tf themeFile
	if err := dec.Decode(&tf); err != nil {
		return nil, fmt.Errorf("not a theme: %v", err)
	}
	if tf.Name == "" || strings.Contains(tf.Name, "/") || tf.Name == "system" {
		return nil, fmt.Errorf("name %q: want a name without \"/\", not \"system\"", tf.Name)
	}
	if len(tf.Colors) == 0 {
		return nil, fmt.Errorf("no colors")
	}
	t := &theme{name: tf.Name, dark: tf.Appearance != "light", roles: map[string]color.Color{}}
	for _, role := range themeRoles {
		raw, ok := tf.Colors[role]
		if !ok {
			continue
		}
		c, err := resolveColor(raw, tf.Vars, 0)
		if err != nil {
			return nil, fmt.Errorf("colors.%s: %v", role, err)
		}
		if c != nil {
			t.roles[role] = c
		}
	}
	return t, nil
}

var (
	reOKLCH = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^oklch\(\s*([\d.]+)(%?)\s+([\d.]+)(%?)\s+([\d.]+)(deg)?\s*\)$`)
	})
	reOKHSL = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^okhsl\(\s*([\d.]+)(deg)?\s+([\d.]+)%\s+([\d.]+)%\s*\)$`)
	})
)

// resolveColor reads one colour value (nil: the terminal's own).
func resolveColor(raw json.RawMessage, vars map[string]json.RawMessage, depth int) (color.Color, error) {
	if depth > 16 {
		return nil, fmt.Errorf("variables refer to each other in a circle")
	}
	var n float64
	if json.Unmarshal(raw, &n) == nil {
		if n < 0 || n > 255 || n != float64(int(n)) {
			return nil, fmt.Errorf("colour index %v: want 0 to 255", n)
		}
		return lipgloss.Color(strconv.Itoa(int(n))), nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, fmt.Errorf("want a colour string or index")
	}
	s = strings.TrimSpace(s)
	f := func(x string) float64 { v, _ := strconv.ParseFloat(x, 64); return v }
	switch {
	case s == "":
		return nil, nil
	case strings.HasPrefix(s, "#"):
		if len(s) != 4 && len(s) != 7 {
			return nil, fmt.Errorf("colour %q: want #rgb or #rrggbb", s)
		}
		if _, err := strconv.ParseUint(s[1:], 16, 32); err != nil {
			return nil, fmt.Errorf("colour %q: not hexadecimal", s)
		}
		return lipgloss.Color(s), nil
	case strings.HasPrefix(s, "oklch("):
		m := reOKLCH().FindStringSubmatch(s)
		if m == nil {
			return nil, fmt.Errorf("colour %q: want oklch(L%% C H)", s)
		}
		L := f(m[1])
		if m[2] == "%" || L > 1 {
			L /= 100
		}
		C := f(m[3])
		if m[4] == "%" {
			C = C / 100 * 0.4
		}
		return rgb(oklch(L, C, f(m[5]))), nil
	case strings.HasPrefix(s, "okhsl("):
		m := reOKHSL().FindStringSubmatch(s)
		if m == nil {
			return nil, fmt.Errorf("colour %q: want okhsl(H S%% L%%)", s)
		}
		return rgb(okhsl(f(m[1]), f(m[3])/100, f(m[4])/100)), nil
	}
	v, ok := vars[s]
	if !ok {
		return nil, fmt.Errorf("no variable %q", s)
	}
	return resolveColor(v, vars, depth+1)
}

func rgb(c [3]uint8) color.Color { return color.RGBA{R: c[0], G: c[1], B: c[2], A: 255} }

// themeNames are the choices of /settings' Theme: system (dark or light
// by the terminal's background), the built-ins, the custom themes.
func (m *model) themeNames() []string {
	names := []string{"system", "dark", "light"}
	var custom []string
	for n := range m.themes {
		custom = append(custom, n)
	}
	sort.Strings(custom)
	return append(names, custom...)
}

// pickTheme resolves the theme setting: "" or "system" follow the
// terminal's background, "light/dark" names one theme for each, any
// other name is that theme (unknown: the background's built-in, with a
// warning).
func (m *model) pickTheme() (*theme, string) {
	setting := m.themeSetting
	light, dark := "light", "dark"
	if l, d, ok := strings.Cut(setting, "/"); ok {
		light, dark = l, d
		setting = ""
	}
	if setting == "" || setting == "system" {
		setting = dark
		if !m.bgDark {
			setting = light
		}
	}
	if t := m.themes[setting]; t != nil {
		return t, ""
	}
	if setting == "dark" || setting == "light" {
		return builtinTheme(setting), ""
	}
	fallback := "dark"
	if !m.bgDark {
		fallback = "light"
	}
	return builtinTheme(fallback), fmt.Sprintf("theme %q not found (themes are read from %s); using %s", setting, filepath.Join(m.agentDir, "themes"), fallback)
}

// useTheme applies the theme the setting and background select.
func (m *model) useTheme() string {
	t, warn := m.pickTheme()
	m.theme = t
	applyTheme(t, m.noColor)
	m.md = markdown{dark: t.dark}
	m.conv.invalidateAll()
	return warn
}

// setTheme is /settings' Theme.
func (m *model) setTheme(name string) error {
	m.themeSetting = name
	if warn := m.useTheme(); warn != "" {
		return fmt.Errorf("%s", warn)
	}
	return nil
}
