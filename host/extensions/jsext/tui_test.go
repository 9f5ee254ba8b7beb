package jsext

import (
	"encoding/json"
	"testing"
)

// piTUIExports are the names @mariozechner/pi-tui 0.73.1 and
// @earendil-works/pi-tui 1.6.0 export (Object.keys of the module in Node).
var piTUIExports = []string{
	"Box", "CURSOR_MARKER", "CancellableLoader", "CombinedAutocompleteProvider", "Container", "Editor", "HStack",
	"Image", "Input", "Key", "KeybindingsManager", "Loader", "Markdown", "Marked", "MouseRegion",
	"ProcessTerminal", "ScrollView", "SelectList", "SettingsList", "Spacer", "StdinBuffer", "TUI",
	"TUI_KEYBINDINGS", "Text", "TruncatedText", "TuiAltScreen", "TuiMainScreen", "VStack", "allocateImageId",
	"backgroundAnsi", "calculateImageRows", "colorToHex", "colorToOkhsl", "colorToOklch", "colorToRgb",
	"compositeTuiLine", "decodeKittyPrintable", "deleteAllKittyImages", "deleteKittyImage", "detectCapabilities",
	"encodeITerm2", "encodeKitty", "foregroundAnsi", "formatProgramStatus", "fuzzyFilter", "fuzzyMatch",
	"getCapabilities", "getCellDimensions", "getGifDimensions", "getImageDimensions", "getJpegDimensions",
	"getKeybindings", "getNativeClipboard", "getOsc8LinkAtColumn", "getPngDimensions", "getSelectPageIndex",
	"getTerminalColorMode", "getWebpDimensions", "hyperlink", "imageFallback", "indexedColor",
	"isAppleTerminalSession", "isFocusable", "isKeyRelease", "isKeyRepeat", "isKittyProtocolActive",
	"isViewportTUI", "matchesKey", "mixColors", "okhslColor", "oklabToOkhslLightness", "oklchColor",
	"parseColor", "parseKey", "parseTerminalColorSchemeReport", "renderFakeCursor", "renderImage", "renderLatex",
	"replaceControlCharacters", "resetCapabilitiesCache", "rgbColor", "setCapabilities",
	"setCapabilityOverrides", "setCellDimensions", "setImageTranscoder", "setKeybindings",
	"setKittyProtocolActive", "sliceByColumn", "stripTerminalSequences", "styleText", "styleTextWithAnsi",
	"truncateToWidth", "visibleWidth", "wrapTextWithAnsi",
}

// Every name pi-tui exports exists in the stand-in, so a named import of
// it (checked when an ES module links, in the Node runtime) works.
func TestTUIStandInHasPiTUIsNames(t *testing.T) {
	h := newHarness(t)
	names, _ := json.Marshal(piTUIExports)
	s := h.mustLoad("tui.js", `
const tui = require("@mariozechner/pi-tui");
module.exports = function (pi) {
  const names = `+string(names)+`;
  const missing = names.filter((n) => !(n in tui));
  const f = tui.fuzzyFilter(["read file", "write file", "bash"], "rf", (x) => x);
  pi.registerCommand("tui", { description: missing.join(",") + "|" + f.join(",") + "|" + tui.stripTerminalSequences("\x1b[31mred\x1b[0m"), handler: async () => {} });
};
`)
	if got := s.Commands()[0].Description; got != "|read file,write file|red" {
		t.Fatalf("got %q", got)
	}
}
