package tui_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atomic-go/atomic/internal/e2e"
)

// chromeExtension sets the header at the start; /chrome sets the working
// message and the footer, /tick re-renders the footer, /plain restores
// the defaults.
const chromeExtension = `
export default function (pi) {
  let count = 0;
  let footerTui;
  pi.on("session_start", (_event, ctx) => {
    if (ctx.mode !== "tui") return;
    ctx.ui.setHeader((_tui, theme) => ({
      render: (width) => [theme.fg("accent", "== my header =="), "header width " + width],
      invalidate() {},
    }));
  });
  pi.registerCommand("chrome", {
    description: "custom chrome",
    handler: async (_args, ctx) => {
      ctx.ui.setWorkingMessage("Pondering deeply");
      ctx.ui.setStatus("st", "a status");
      ctx.ui.setFooter((tui, _theme, footerData) => {
        footerTui = tui;
        return {
          render: () => ["custom footer " + count + " " + (footerData.getExtensionStatuses().get("st") || "-")],
          invalidate() {},
        };
      });
    },
  });
  pi.registerCommand("tick", {
    description: "re-render the footer",
    handler: async () => {
      count++;
      footerTui.requestRender();
    },
  });
  pi.registerCommand("plain", {
    description: "restore the defaults",
    handler: async (_args, ctx) => {
      ctx.ui.setWorkingMessage();
      ctx.ui.setFooter(undefined);
      ctx.ui.setHeader(undefined);
    },
  });
}
`

// engines are the script engines with what their settings entry adds:
// goja in the agent, goja isolated in a child, Node.
var engines = []struct{ name, entry string }{
	{"goja", ``},
	{"isolated", `, "isolation": "process"`},
	{"node", `, "runtime": "node"`},
}

// startWithExtension starts the terminal with the extension src (written
// as file) in the engine of entry, on the faux script.
func startWithExtension(t *testing.T, entry, file, src string, script []map[string]any) *screen {
	t.Helper()
	ext := filepath.Join(t.TempDir(), file)
	if err := os.WriteFile(ext, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	return startScreen(t, e2e.Options{
		AgentFiles: map[string]string{"settings.json": fmt.Sprintf(`{"extensions": [{"path": %q%s}]}`, ext, entry)},
		Script:     script,
	})
}

// The working message, header and footer in each engine: goja in the
// agent, goja isolated in a child, Node.
func TestExtensionWorkingMessageHeaderFooter(t *testing.T) {
	for _, engine := range engines {
		t.Run(engine.name, func(t *testing.T) {
			t.Parallel()
			s := startWithExtension(t, engine.entry, "chrome.js", chromeExtension, []map[string]any{
				{"text": strings.Repeat("slow ", 40), "chunks": 40, "delayMs": 50},
				{"text": "second answer", "chunks": 10, "delayMs": 50},
			})
			// The header is the conversation's first lines, rendered at 80
			// columns.
			got := s.waitFor("== my header ==", "header width 80", "Type a message", "faux/faux-1")
			if engine.name == "goja" {
				s.golden("ext_header", got)
			}
			s.typeText("/chrome" + keyEnter)
			got = s.waitFor("custom footer 0 a status")
			if strings.Contains(got, "faux/faux-1") {
				t.Fatalf("the built-in footer is still drawn beside the custom one:\n%s", got)
			}
			s.typeText("/tick" + keyEnter)
			got = s.waitFor("custom footer 1 a status")
			if engine.name == "goja" {
				s.golden("ext_footer", got)
			}
			s.typeText("go" + keyEnter)
			s.waitFor("Pondering deeply (esc to interrupt)", "slow")
			s.waitGone("Pondering deeply")
			s.typeText("/plain" + keyEnter)
			s.waitFor("faux/faux-1")
			s.waitGone("custom footer")
			s.waitGone("my header")
			s.typeText("again" + keyEnter)
			s.waitFor("Working… (esc to interrupt)")
			s.waitFor("second answer")
		})
	}
}
