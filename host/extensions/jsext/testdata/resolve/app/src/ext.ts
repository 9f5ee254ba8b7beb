// An extension resolving through package.json "exports" and "imports"
// (the goja and Node engines must both give the names pi 1.6 gives).
import { name as dual } from "dual";
import { name as sub } from "dual/sub/a";
import { name as nested } from "dual/nested";
import { name as util } from "#util";
import { name as cond } from "#cond";
import { name as ts } from "#src/ts-only";
import { name as tsjs } from "#src/ts-only.js";
import { name as self } from "app/feature";
import { name as dep } from "#dep";
import fromCjs from "./uses-require.cjs";
import { createRequire } from "node:module";

const req = createRequire(import.meta.url);
let notExported = "";
try {
  req("dual/private/a");
} catch (e: any) {
  notExported = String(e.code) + ": " + String(e.message).replace(/ imported from .*/, "").replace(/ in \/.*node_modules\//, " in node_modules/");
}

export default function (pi: any) {
  const out = { dual, sub, nested, util, cond, ts, tsjs, self, dep, fromCjs, required: req("dual").name, notExported };
  pi.registerFlag("out", { type: "string", default: JSON.stringify(out) });
  pi.registerCommand("resolved", { description: JSON.stringify(out), handler: async () => {} });
}
