// Package htmlexport writes a session's active branch as one
// self-contained HTML page: styles and script inline, images as data URIs,
// and a Content-Security-Policy that forbids every network request.
// Entries are read and rendered one at a time, so a large session is
// exported without holding it in memory.
package htmlexport

import (
	"bufio"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"strings"
	"time"

	"github.com/atomic-go/atomic/internal/fsutil"

	"github.com/atomic-go/atomic/host/llm"
	"github.com/atomic-go/atomic/host/session"
)

// Info describes the session beyond its entries.
type Info struct {
	Model     string // the current model, "provider/id"
	Generated time.Time
}

// WriteFile renders the session into path, through a temporary file that
// is renamed into place.
func WriteFile(path string, s *session.Session, info Info) error {
	return fsutil.Write(path, fsutil.Options{Perm: 0o644, DirPerm: 0o755}, func(w *bufio.Writer) error {
		return Render(w, s, info)
	})
}

// totals are the figures of the page header.
type totals struct {
	usage      llm.Usage
	models     []string
	messages   int
	toolCalls  int
	assistants int
}

// Render writes the page.
func Render(w io.Writer, s *session.Session, info Info) error {
	if info.Generated.IsZero() {
		info.Generated = time.Now()
	}
	var t totals
	seenModel := map[string]bool{}
	// First pass, over the assistant messages only: the figures for the
	// header.
	onlyAssistant := func(typ, role string) bool {
		if typ == session.TypeMessage || typ == session.TypeCustomMessage || typ == session.TypeBranchSummary {
			t.messages++
		}
		return typ == session.TypeMessage && role == llm.RoleAssistant
	}
	err := s.WalkBranchFiltered("", onlyAssistant, func(e *session.Entry) error {
		if m, ok := session.EntryMessage(e); ok {
			if m.Role == llm.RoleAssistant {
				t.assistants++
				t.usage = t.usage.Add(m.Usage)
				t.toolCalls += len(m.ToolCalls())
				if name := m.Provider + "/" + m.Model; m.Model != "" && !seenModel[name] {
					seenModel[name] = true
					t.models = append(t.models, name)
				}
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	p := &page{w: w, s: s}
	p.head(s, info, &t)
	err = s.WalkBranch("", func(e *session.Entry) error {
		p.entry(e)
		return p.err
	})
	if err != nil {
		return err
	}
	p.tail()
	return p.err
}

type page struct {
	w   io.Writer
	s   *session.Session
	err error
}

func (p *page) print(parts ...string) {
	for _, s := range parts {
		if p.err != nil {
			return
		}
		_, p.err = io.WriteString(p.w, s)
	}
}

func escape(s string) string { return html.EscapeString(s) }

func (p *page) head(s *session.Session, info Info, t *totals) {
	h := s.Header()
	title := s.Name()
	if title == "" {
		title = "Session " + h.ID
	}
	p.print(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src data:; style-src 'unsafe-inline'; script-src 'unsafe-inline'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>`, escape(title), `</title>
<style>`, css, `</style>
</head>
<body>
<header>
<h1>`, escape(title), `</h1>
<table class="meta">
<tr><th>Session</th><td>`, escape(h.ID), `</td></tr>
`)
	if s.Path() != "" {
		p.print(`<tr><th>File</th><td>`, escape(s.Path()), `</td></tr>
`)
	}
	p.print(`<tr><th>Directory</th><td>`, escape(h.Cwd), `</td></tr>
<tr><th>Started</th><td>`, escape(h.Timestamp), `</td></tr>
`)
	if h.ParentSession != "" {
		p.print(`<tr><th>Parent session</th><td>`, escape(h.ParentSession), `</td></tr>
`)
	}
	if info.Model != "" {
		p.print(`<tr><th>Model</th><td class="model">`, escape(info.Model), `</td></tr>
`)
	}
	if len(t.models) > 0 {
		p.print(`<tr><th>Models used</th><td>`, escape(strings.Join(t.models, ", ")), `</td></tr>
`)
	}
	u := t.usage
	p.print(`<tr><th>Messages</th><td>`, fmt.Sprint(t.messages), ` (`, fmt.Sprint(t.assistants), ` from the assistant, `, fmt.Sprint(t.toolCalls), ` tool calls)</td></tr>
<tr><th>Tokens</th><td class="tokens">input `, fmt.Sprint(u.Input), ` · output `, fmt.Sprint(u.Output),
		` · cache read `, fmt.Sprint(u.CacheRead), ` · cache write `, fmt.Sprint(u.CacheWrite),
		` · total `, fmt.Sprint(u.Input+u.Output+u.CacheRead+u.CacheWrite), `</td></tr>
<tr><th>Cost</th><td class="cost">$`, fmt.Sprintf("%.4f", u.Cost.Total), `</td></tr>
</table>
<div class="controls"><button type="button" id="expand">Expand all</button> <button type="button" id="collapse">Collapse all</button></div>
</header>
<main id="conversation">
`)
}

func (p *page) tail() {
	p.print(`</main>
<footer>Exported `, escape(time.Now().UTC().Format(time.RFC3339)), `. The active branch of the session tree is shown.</footer>
<script>`, script, `</script>
</body>
</html>
`)
}

func (p *page) labelBadge(id string) string {
	if l, _, ok := p.s.Label(id); ok {
		return ` <span class="label">` + escape(l) + `</span>`
	}
	return ""
}

func (p *page) entry(e *session.Entry) {
	switch e.Type {
	case session.TypeMessage:
		if e.Message != nil {
			p.message(e, e.Message)
		}
	case session.TypeCustomMessage:
		if e.Display {
			p.print(`<section class="msg custom" id="e-`, escape(e.ID), `"><div class="role">`, escape(e.CustomType), p.labelBadge(e.ID), `</div>`)
			p.content(e.Content)
			p.print("</section>\n")
		}
	case session.TypeBranchSummary:
		if e.Summary != "" {
			p.print(`<section class="msg summary" id="e-`, escape(e.ID), `"><div class="role">Summary of an abandoned branch</div>`, markdown(e.Summary), "</section>\n")
		}
	case session.TypeCompaction:
		p.print(`<section class="msg compaction" id="e-`, escape(e.ID), `"><details><summary>Compacted history (`,
			fmt.Sprint(e.TokensBefore), ` tokens before)</summary><pre>`, escape(e.Summary), "</pre></details></section>\n")
	case session.TypeModelChange:
		p.print(`<div class="note">Model: `, escape(e.Provider+"/"+e.ModelID), "</div>\n")
	case session.TypeThinkingLevelChange:
		p.print(`<div class="note">Thinking level: `, escape(e.ThinkingLevel), "</div>\n")
	}
}

func (p *page) message(e *session.Entry, m *llm.Message) {
	id := escape(e.ID)
	switch m.Role {
	case llm.RoleUser:
		p.print(`<section class="msg user" id="e-`, id, `"><div class="role">User`, p.labelBadge(e.ID), `</div>`)
		p.content(m.Content)
		p.print("</section>\n")
	case llm.RoleAssistant:
		p.print(`<section class="msg assistant" id="e-`, id, `"><div class="role">Assistant`, p.labelBadge(e.ID), `</div>`)
		for _, b := range m.Content.Blocks {
			switch b.Type {
			case llm.BlockThinking:
				if b.Thinking != "" {
					p.print(`<details class="thinking"><summary>Thinking</summary><div class="body">`, markdown(b.Thinking), "</div></details>")
				} else if b.Redacted {
					p.print(`<div class="thinking redacted">Thinking (redacted)</div>`)
				}
			case llm.BlockText:
				p.print(`<div class="text">`, markdown(b.Text), "</div>")
			case llm.BlockToolCall:
				args, _ := json.MarshalIndent(b.Arguments, "", "  ")
				p.print(`<div class="tool-call" id="call-`, escape(b.ID), `"><div class="tool-name">`, escape(b.Name),
					`</div><pre class="args">`, escape(string(args)), "</pre></div>")
			}
		}
		if m.ErrorMessage != "" {
			p.print(`<div class="error">`, escape(m.ErrorMessage), "</div>")
		}
		u := m.Usage
		p.print(`<div class="usage">`, escape(m.Provider+"/"+m.Model), ` · in `, fmt.Sprint(u.Input), ` · out `, fmt.Sprint(u.Output),
			` · $`, fmt.Sprintf("%.4f", u.Cost.Total), "</div></section>\n")
	case llm.RoleToolResult:
		cls := "tool-result"
		if m.IsError {
			cls += " is-error"
		}
		text := m.Content.JoinText("")
		open := ""
		if strings.Count(text, "\n") < 20 && len(text) < 4000 {
			open = " open"
		}
		p.print(`<section class="msg `, cls, `" id="e-`, id, `"><details`, open, `><summary>Result of `, escape(m.ToolName),
			` <span class="size">(`, fmt.Sprint(len(text)), ` bytes)</span></summary><pre>`, escape(text), `</pre>`)
		p.images(m.Content)
		p.nestedCalls(m)
		p.print("</details></section>\n")
	case llm.RoleBashExecution:
		p.print(`<section class="msg bash" id="e-`, id, `"><div class="role">Shell</div><pre class="cmd">$ `, escape(m.Command), `</pre><pre>`, escape(m.Output), `</pre>`)
		if m.Cancelled {
			p.print(`<div class="note">cancelled</div>`)
		} else if m.ExitCode != nil && *m.ExitCode != 0 {
			p.print(`<div class="note">exit code `, fmt.Sprint(*m.ExitCode), `</div>`)
		}
		p.print("</section>\n")
	case llm.RoleCustom:
		if m.Display {
			p.print(`<section class="msg custom" id="e-`, id, `"><div class="role">`, escape(m.CustomType), `</div>`)
			p.content(m.Content)
			p.print("</section>\n")
		}
	}
}

// nestedCalls lists the calls a tool made to other tools (recorded
// without their results), as pi 1.6's export does: a status mark, the
// tool, its arguments (or their size when the record left them out), the
// duration, the error.
func (p *page) nestedCalls(m *llm.Message) {
	nc, ok := m.NestedCalls()
	if !ok || len(nc.Calls) == 0 {
		return
	}
	title := fmt.Sprintf("Nested calls: %d", len(nc.Calls))
	if !nc.Complete {
		title += " (incomplete record)"
	}
	var b strings.Builder
	for i, c := range nc.Calls {
		if i > 0 {
			b.WriteByte('\n')
		}
		mark := "?"
		switch c.Status {
		case "ok":
			mark = "✓"
		case "error":
			mark = "✗"
		case "unfinished":
			mark = "…"
		}
		args := fmt.Sprintf("[arguments omitted, %d bytes]", c.ArgumentsBytes)
		if c.Arguments != nil {
			var a strings.Builder
			enc := json.NewEncoder(&a)
			enc.SetEscapeHTML(false) // the page escapes it
			_ = enc.Encode(c.Arguments)
			args = strings.TrimSuffix(a.String(), "\n")
		}
		b.WriteString(mark + " " + c.Name + " " + args)
		if c.DurationMs != nil {
			fmt.Fprintf(&b, " %dms", *c.DurationMs)
		}
		if c.Error != "" {
			b.WriteString("\n    " + strings.ReplaceAll(c.Error, "\n", "\n    "))
		}
	}
	p.print(`<details class="nested-calls"><summary>`, escape(title), `</summary><pre>`, escape(b.String()), `</pre></details>`)
}

func (p *page) content(c llm.Content) {
	for _, b := range c.Blocks {
		if b.Type == llm.BlockText {
			p.print(`<div class="text">`, markdown(b.Text), "</div>")
		}
	}
	p.images(c)
}

func (p *page) images(c llm.Content) {
	for _, b := range c.Images() {
		u := "data:" + b.MimeType + ";base64," + b.Data
		if isDataImage(u) {
			p.print(`<img class="attachment" alt="attached image" src="`, escape(u), `">`)
		}
	}
}

const css = `
:root{--fg:#1f2328;--muted:#656d76;--bg:#fff;--user:#eef6ff;--asst:#f6f8fa;--border:#d0d7de;--err:#cf222e}
body{font:15px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;color:var(--fg);background:var(--bg);max-width:60rem;margin:0 auto;padding:1rem}
header h1{font-size:1.4rem;margin:.2rem 0 .6rem}
table.meta{border-collapse:collapse;font-size:.9rem}
table.meta th{text-align:left;color:var(--muted);padding:.1rem 1rem .1rem 0;font-weight:600}
.controls{margin:.8rem 0}
.msg{border:1px solid var(--border);border-radius:8px;padding:.6rem .9rem;margin:.8rem 0;overflow-wrap:anywhere}
.msg.user{background:var(--user)}
.msg.assistant{background:var(--asst)}
.role{font-weight:600;font-size:.85rem;color:var(--muted);margin-bottom:.3rem}
.label{background:#ddf4ff;border-radius:1em;padding:0 .5em;font-weight:500}
pre{background:#fff;border:1px solid var(--border);border-radius:6px;padding:.5rem;overflow:auto;white-space:pre-wrap}
.text table{border-collapse:collapse;margin:.5rem 0}
.text th,.text td{border:1px solid var(--border);padding:.2rem .6rem}
.tool-call{margin:.4rem 0}
.tool-name::before{content:"Tool call: ";font-weight:400;color:var(--muted)}
.tool-name{font-family:ui-monospace,monospace;font-weight:600}
.tool-result.is-error summary,.error{color:var(--err)}
details.thinking{color:var(--muted);margin:.3rem 0}
.usage,.note,.size{color:var(--muted);font-size:.8rem}
img{max-width:100%}
.remote-image{color:var(--muted)}
footer{color:var(--muted);font-size:.8rem;margin:2rem 0}
`

const script = `
(function(){
  function all(open){document.querySelectorAll('details').forEach(function(d){d.open=open;});}
  document.getElementById('expand').addEventListener('click',function(){all(true);});
  document.getElementById('collapse').addEventListener('click',function(){all(false);});
})();
`
