// The extension TestPi16ExportsInGoja and TestPi16ExportsInNode load: it
// checks that every name of exports.txt (prepended by the test as the
// string `listing`) exists in atomic's stand-ins with pi's kind, and names
// what is wrong in its command's description ("ok" when nothing is).
import * as agent from "@earendil-works/pi-coding-agent";
import * as ai from "@earendil-works/pi-ai";
import * as aiCompat from "@earendil-works/pi-ai/compat";
import * as tui from "@earendil-works/pi-tui";
import * as core from "@earendil-works/pi-agent-core";

declare const listing: string;

const modules: Record<string, any> = {
  "@earendil-works/pi-coding-agent": agent,
  "@earendil-works/pi-ai": ai,
  "@earendil-works/pi-ai/compat": aiCompat,
  "@earendil-works/pi-tui": tui,
  "@earendil-works/pi-agent-core": core,
};

function kindOf(v: unknown): string {
  if (typeof v === "function") return /^class[\s{]/.test(Function.prototype.toString.call(v)) ? "class" : "function";
  return v === null ? "null" : typeof v;
}

const problems: string[] = [];
for (const line of listing.split("\n")) {
  if (!line || line.startsWith("#")) continue;
  const [mod, name, kind] = line.split(" ");
  const ns = modules[mod];
  if (!ns) {
    problems.push(`${mod}: not checked`);
    continue;
  }
  if (!(name in ns)) {
    problems.push(`${mod} ${name}: missing`);
    continue;
  }
  const got = kindOf(ns[name]);
  if (got !== kind) problems.push(`${mod} ${name}: a ${got}, pi's is a ${kind}`);
}

export default function (pi: any) {
  pi.registerCommand("exports", { description: problems.length ? problems.join("\n") : "ok", handler: async () => {} });
}
