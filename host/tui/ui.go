package tui

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"charm.land/bubbles/v2/textarea"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/atomic-go/atomic/host/extensions"
)

// uiBridge is the extension UI of the terminal: app.UI's requests become
// messages to the program; a dialog waits for the user's answer, its
// timeout, its context or the end of the program.
type uiBridge struct {
	send   func(tea.Msg)
	done   <-chan struct{}
	nextID atomic.Int64
}

// Request implements app.UI.
func (b *uiBridge) Request(ctx context.Context, method string, params map[string]any) (extensions.UIAnswer, error) {
	if err := extensions.CheckUIRequest(method, params); err != nil {
		return extensions.UIAnswer{Cancelled: true}, err
	}
	if !extensions.IsUIDialog(method) {
		b.send(uiNoteMsg{method: method, params: params})
		return extensions.UIAnswer{}, nil
	}
	if ctx.Err() != nil {
		return extensions.UIAnswer{Cancelled: true}, nil
	}
	d := newExtDialog(int(b.nextID.Add(1)), method, params)
	b.send(dialogOpenMsg{d})
	var timeout <-chan time.Time
	if t := extensions.UITimeout(params); t > 0 {
		tm := time.NewTimer(t)
		defer tm.Stop()
		timeout = tm.C
	}
	select {
	case a := <-d.answer:
		return a, nil
	case <-timeout:
	case <-ctx.Done():
	case <-b.done:
		return extensions.UIAnswer{Cancelled: true}, nil
	}
	b.send(dialogCloseMsg{id: d.id})
	return extensions.UIAnswer{Cancelled: true}, nil
}

type uiNoteMsg struct {
	method string
	params map[string]any
}

type dialogOpenMsg struct{ d *dialog }
type dialogCloseMsg struct{ id int }

// dialog is one overlay waiting for the user: an extension's select,
// confirm, input or editor, or a built-in picker (pick is set).
type dialog struct {
	id      int
	method  string
	title   string
	message string
	options []string // select and pickers: every option
	details []string // pickers: a dim second column
	sel     int
	yes     bool // confirm: the highlighted answer
	input   textinput.Model
	area    textarea.Model
	answer  chan extensions.UIAnswer

	// pick is a built-in picker's action with the chosen option's index.
	pick func(index int) tea.Cmd
	// onKey, when set, sees a list's keys first (handled true: taken).
	onKey func(d *dialog, msg tea.KeyPressMsg) (tea.Cmd, bool)
	// rows is how many options the last view showed (a page).
	rows int
	// hint replaces the key hint under a list.
	hint string
}

func newExtDialog(id int, method string, p map[string]any) *dialog {
	str := func(k string) string { s, _ := p[k].(string); return s }
	d := &dialog{id: id, method: method, title: str("title"), message: str("message"), answer: make(chan extensions.UIAnswer, 1), yes: true}
	switch method {
	case "select":
		if opts, ok := p["options"].([]any); ok {
			for _, o := range opts {
				s, _ := o.(string)
				d.options = append(d.options, s)
			}
		}
	case "input":
		d.input = textinput.New()
		d.input.Placeholder = str("placeholder")
		d.input.Focus()
	case "editor":
		d.area = textarea.New()
		d.area.ShowLineNumbers = false
		d.area.SetHeight(6)
		d.area.SetValue(str("prefill"))
		d.area.Focus()
	}
	return d
}

// newPicker is a built-in picker with a filter line.
func newPicker(title string, options, details []string, pick func(int) tea.Cmd) *dialog {
	d := &dialog{method: "picker", title: title, options: options, details: details, pick: pick, input: textinput.New()}
	d.input.Placeholder = "type to filter"
	d.input.Focus()
	return d
}

// visible lists the indexes of the options the filter keeps.
func (d *dialog) visible() []int {
	f := ""
	if d.method == "picker" {
		f = strings.ToLower(strings.TrimSpace(d.input.Value()))
	}
	var idx []int
	for i, o := range d.options {
		if f == "" || strings.Contains(strings.ToLower(o), f) || (i < len(d.details) && strings.Contains(strings.ToLower(d.details[i]), f)) {
			idx = append(idx, i)
		}
	}
	return idx
}

// resolve answers an extension dialog (a no-op for pickers).
func (d *dialog) resolve(a extensions.UIAnswer) {
	if d.answer == nil {
		return
	}
	select {
	case d.answer <- a:
	default:
	}
}

// key handles a key press; done is true when the dialog is over.
func (d *dialog) key(msg tea.KeyPressMsg, km keymap) (done bool, cmd tea.Cmd) {
	k := msg.String()
	if km.is(msg, "tui.select.cancel") {
		d.resolve(extensions.UIAnswer{Cancelled: true})
		return true, nil
	}
	switch d.method {
	case "confirm":
		switch {
		case k == "y" || k == "Y":
			d.resolve(extensions.UIAnswer{Confirmed: true})
			return true, nil
		case k == "n" || k == "N":
			d.resolve(extensions.UIAnswer{Confirmed: false})
			return true, nil
		case k == "left" || k == "right" || k == "tab" || k == "h" || k == "l":
			d.yes = !d.yes
		case km.is(msg, "tui.select.confirm"):
			d.resolve(extensions.UIAnswer{Confirmed: d.yes})
			return true, nil
		}
	case "select", "picker":
		if d.onKey != nil {
			if c, handled := d.onKey(d, msg); handled {
				return false, c
			}
		}
		vis := d.visible()
		page := max(d.rows-1, 1)
		switch {
		case km.is(msg, "tui.select.up") || k == "ctrl+p":
			d.sel = max(d.sel-1, 0)
		case km.is(msg, "tui.select.down") || k == "ctrl+n":
			d.sel = max(min(d.sel+1, len(vis)-1), 0)
		case km.is(msg, "tui.select.pageUp"):
			d.sel = max(d.sel-page, 0)
		case km.is(msg, "tui.select.pageDown"):
			d.sel = max(min(d.sel+page, len(vis)-1), 0)
		case km.is(msg, "tui.select.confirm"):
			if len(vis) == 0 {
				return false, nil
			}
			i := vis[min(d.sel, len(vis)-1)]
			if d.pick != nil {
				return true, d.pick(i)
			}
			d.resolve(extensions.UIAnswer{Value: d.options[i], HasValue: true})
			return true, nil
		default:
			if d.method == "picker" {
				var c tea.Cmd
				d.input, c = d.input.Update(msg)
				d.sel = 0
				return false, c
			}
		}
	case "input":
		if km.is(msg, "tui.input.submit") {
			d.resolve(extensions.UIAnswer{Value: d.input.Value(), HasValue: true})
			return true, nil
		}
		var c tea.Cmd
		d.input, c = d.input.Update(msg)
		return false, c
	case "editor":
		if km.is(msg, "tui.input.newLine") || k == "alt+enter" {
			d.area.InsertString("\n")
			return false, nil
		}
		if km.is(msg, "tui.input.submit") || k == "ctrl+s" {
			d.resolve(extensions.UIAnswer{Value: d.area.Value(), HasValue: true})
			return true, nil
		}
		var c tea.Cmd
		d.area, c = d.area.Update(msg)
		return false, c
	}
	return false, nil
}

// paste hands pasted text to the dialog's input.
func (d *dialog) paste(msg tea.PasteMsg) tea.Cmd {
	var c tea.Cmd
	switch d.method {
	case "input", "picker":
		d.input, c = d.input.Update(msg)
	case "editor":
		d.area, c = d.area.Update(msg)
	}
	return c
}

// view draws the dialog as a box of the given width, at most maxRows
// options tall.
func (d *dialog) view(width, maxRows int) string {
	inner := max(width-4, 10)
	var b strings.Builder
	b.WriteString(lipgloss.NewStyle().Bold(true).Render(truncateWidth(d.title, inner)))
	if d.message != "" {
		b.WriteString("\n" + lipgloss.Wrap(d.message, inner, ""))
	}
	hint := ""
	switch d.method {
	case "confirm":
		yes, no := " Yes ", " No "
		if d.yes {
			yes = styleSelected.Render(yes)
		} else {
			no = styleSelected.Render(no)
		}
		b.WriteString("\n\n" + yes + "  " + no)
		hint = "y/n or ←/→ and enter · esc cancel"
	case "select", "picker":
		if d.method == "picker" {
			d.input.SetWidth(inner - 2)
			b.WriteString("\n" + d.input.View())
		}
		vis := d.visible()
		if d.sel >= len(vis) {
			d.sel = max(len(vis)-1, 0)
		}
		rows := max(maxRows, 3)
		d.rows = rows
		start := 0
		if d.sel >= rows {
			start = d.sel - rows + 1
		}
		for n := start; n < len(vis) && n < start+rows; n++ {
			i := vis[n]
			line := d.options[i]
			if i < len(d.details) && d.details[i] != "" {
				line += "  " + styleDim.Render(d.details[i])
			}
			line = truncateWidth(line, inner-2)
			if n == d.sel {
				b.WriteString("\n" + styleAccent.Render("→ ") + line)
			} else {
				b.WriteString("\n  " + line)
			}
		}
		if len(vis) == 0 {
			b.WriteString("\n" + styleDim.Render("  (no match)"))
		} else if len(vis) > rows {
			b.WriteString("\n" + styleDim.Render(fmt.Sprintf("  (%d of %d)", d.sel+1, len(vis))))
		}
		hint = "↑/↓ move · enter choose · esc cancel"
		if d.hint != "" {
			hint = d.hint
		}
	case "input":
		d.input.SetWidth(inner - 2)
		b.WriteString("\n" + d.input.View())
		hint = "enter submit · esc cancel"
	case "editor":
		d.area.SetWidth(inner)
		b.WriteString("\n" + d.area.View())
		hint = "enter submit · shift+enter new line · esc cancel"
	}
	b.WriteString("\n" + styleDim.Render(hint))
	return styleDialog.Width(width).Render(b.String())
}
