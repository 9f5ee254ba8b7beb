// The run-time part of the AI library that extensions use: the TypeBox
// re-export and StringEnum. Model calls are not available to scripts.
"use strict";

const typebox = require("@sinclair/typebox");

function StringEnum(values, options) {
  const out = Object.assign({}, options || {}, { type: "string", enum: Array.from(values || []) });
  Object.defineProperty(out, typebox.Kind, { value: "Unsafe", enumerable: false, configurable: true, writable: true });
  return out;
}

module.exports = {
  __esModule: true,
  Type: typebox.Type,
  StringEnum,
};
