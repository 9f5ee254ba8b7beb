// The run-time part of the AI library that extensions use: the TypeBox
// re-export and StringEnum. Model calls are not available to scripts
// (complete, stream… exist and throw when called).
"use strict";

const typebox = require("@sinclair/typebox");

function StringEnum(values, options) {
  const out = Object.assign({}, options || {}, { type: "string", enum: Array.from(values || []) });
  Object.defineProperty(out, typebox.Kind, { value: "Unsafe", enumerable: false, configurable: true, writable: true });
  return out;
}

// Calling a model is the agent's work, not an extension's: these exist so
// that an extension importing them loads, and fail when called.
const noModelCalls = (name) => () => {
  throw new Error(`${name}() is not available to extensions in atomic: the agent calls the model (use pi.sendUserMessage or a tool)`);
};
const levels = ["off", "minimal", "low", "medium", "high", "xhigh"];
function clampThinkingLevel(level, supported) {
  const allowed = Array.isArray(supported) && supported.length ? supported : levels;
  if (allowed.includes(level)) return level;
  const want = levels.indexOf(level);
  let best = allowed[0];
  for (const l of allowed) if (levels.indexOf(l) <= want) best = l;
  return best;
}

module.exports = {
  __esModule: true,
  Type: typebox.Type,
  StringEnum,
  clampThinkingLevel,
  complete: noModelCalls("complete"),
  completeSimple: noModelCalls("completeSimple"),
  stream: noModelCalls("stream"),
  streamSimple: noModelCalls("streamSimple"),
  getModel: () => undefined,
  getModels: () => [],
  getProviders: () => [],
};
