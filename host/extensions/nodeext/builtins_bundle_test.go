package nodeext

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atomic-go/atomic/host/extensions"
)

// Built-ins whose ES module facade loads more than the module
// (builtinFacades) are required by the bundle: the default, named and
// namespace imports give what Node's do.
func TestBundledBuiltinImportsKeepTheirValues(t *testing.T) {
	seen := observeBundles(t)
	h := &fakeHost{uiCh: make(chan string, 10)}
	rt := newRuntime(t, h)
	dir := t.TempDir()
	src := `import * as http from "node:http";
import https from "node:https";
import fs, { readFileSync, promises } from "fs";
import * as util from "node:util";
import { format } from "node:util";
import processModule, { cwd } from "node:process";
export default function (pi: any) {
  pi.registerCommand("builtins", {
    handler: async (_args: string, ctx: any) => {
      ctx.ui.notify([
        typeof http.createServer, typeof http.STATUS_CODES, http.METHODS.includes("GET"),
        typeof https.request, fs.readFileSync === readFileSync, typeof promises.readFile,
        util.format("%d", 7), format("%s", "x"), processModule === process, cwd() === process.cwd(),
      ].join(","), "info");
    },
  });
}
`
	entry := filepath.Join(dir, "index.ts")
	if err := os.WriteFile(entry, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	ext := loadExt(t, rt, h, entry, extensions.Options{})
	if s := seen(); len(s) != 1 || s[0].Path == "" {
		t.Fatalf("not bundled: %+v", s)
	}
	if err := ext.RunCommand(context.Background(), "builtins", ""); err != nil {
		t.Fatal(err)
	}
	const want = "function,object,true,function,true,function,7,x,true,true"
	if ui := notified(t, h); !strings.Contains(ui, want) {
		t.Fatalf("builtins: %s\nwant %s", ui, want)
	}
}
