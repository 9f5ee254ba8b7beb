// A TypeBox-compatible schema builder (the part extensions use): every
// function returns a plain JSON Schema object, marked with TypeBox's
// symbols (which JSON.stringify leaves out).
"use strict";

const Kind = Symbol.for("TypeBox.Kind");
const Hint = Symbol.for("TypeBox.Hint");
const OptionalKind = Symbol.for("TypeBox.Optional");
const ReadonlyKind = Symbol.for("TypeBox.Readonly");
const TransformKind = Symbol.for("TypeBox.Transform");

function create(kind, schema, options) {
  const out = Object.assign({}, options || {}, schema);
  Object.defineProperty(out, Kind, { value: kind, enumerable: false, configurable: true, writable: true });
  return out;
}

function clone(schema) {
  const out = Object.assign({}, schema);
  for (const s of Object.getOwnPropertySymbols(schema)) {
    Object.defineProperty(out, s, { value: schema[s], enumerable: false, configurable: true, writable: true });
  }
  return out;
}

function mark(schema, sym, on) {
  const out = clone(schema);
  if (on === false) delete out[sym];
  else Object.defineProperty(out, sym, { value: sym === OptionalKind ? "Optional" : "Readonly", enumerable: false, configurable: true, writable: true });
  return out;
}

const isOptional = (s) => !!(s && s[OptionalKind] === "Optional");

function literalType(v) {
  switch (typeof v) {
    case "string":
      return "string";
    case "number":
      return "number";
    case "boolean":
      return "boolean";
  }
  return undefined;
}

const Type = {
  String: (options) => create("String", { type: "string" }, options),
  Number: (options) => create("Number", { type: "number" }, options),
  Integer: (options) => create("Integer", { type: "integer" }, options),
  Boolean: (options) => create("Boolean", { type: "boolean" }, options),
  Null: (options) => create("Null", { type: "null" }, options),
  Any: (options) => create("Any", {}, options),
  Unknown: (options) => create("Unknown", {}, options),
  Never: (options) => create("Never", { not: {} }, options),
  Literal: (value, options) => {
    const s = { const: value };
    const t = literalType(value);
    if (t) s.type = t;
    return create("Literal", s, options);
  },
  RegExp: (pattern, options) =>
    create("String", { type: "string", pattern: pattern instanceof RegExp ? pattern.source : String(pattern) }, options),
  Array: (items, options) => create("Array", { type: "array", items }, options),
  Tuple: (items, options) => {
    const n = items ? items.length : 0;
    const s = { type: "array", minItems: n, maxItems: n };
    if (n > 0) Object.assign(s, { items: items.slice(), additionalItems: false });
    return create("Tuple", s, options);
  },
  Object: (properties, options) => {
    const props = {};
    const required = [];
    for (const [k, v] of Object.entries(properties || {})) {
      props[k] = v;
      if (!isOptional(v)) required.push(k);
    }
    const s = { type: "object", properties: props };
    if (required.length) s.required = required;
    return create("Object", s, options);
  },
  Record: (key, value, options) => {
    const pattern = key && (key.type === "number" || key.type === "integer") ? "^(0|[1-9][0-9]*)$" : "^(.*)$";
    return create("Record", { type: "object", patternProperties: { [pattern]: value } }, options);
  },
  Union: (anyOf, options) => {
    if (!anyOf || anyOf.length === 0) return Type.Never(options);
    if (anyOf.length === 1) return Object.assign(clone(anyOf[0]), options || {});
    return create("Union", { anyOf: anyOf.slice() }, options);
  },
  Intersect: (allOf, options) => {
    if (!allOf || allOf.length === 0) return Type.Never(options);
    if (allOf.length === 1) return Object.assign(clone(allOf[0]), options || {});
    return create("Intersect", { allOf: allOf.slice() }, options);
  },
  Enum: (item, options) => {
    const values = Object.keys(item)
      .filter((k) => isNaN(Number(k)))
      .map((k) => item[k]);
    return create("Union", { anyOf: values.map((v) => Type.Literal(v)) }, options);
  },
  KeyOf: (schema, options) => Type.Union(Object.keys(schema.properties || {}).map((k) => Type.Literal(k)), options),
  Optional: (schema, enable) => mark(schema, OptionalKind, enable),
  Readonly: (schema, enable) => mark(schema, ReadonlyKind, enable),
  ReadonlyOptional: (schema) => mark(mark(schema, ReadonlyKind), OptionalKind),
  Partial: (schema, options) => {
    const props = {};
    for (const [k, v] of Object.entries(schema.properties || {})) props[k] = mark(v, OptionalKind);
    const out = Object.assign(clone(schema), options || {}, { properties: props });
    delete out.required;
    return out;
  },
  Required: (schema, options) => {
    const props = {};
    for (const [k, v] of Object.entries(schema.properties || {})) props[k] = mark(v, OptionalKind, false);
    return Object.assign(clone(schema), options || {}, { properties: props, required: Object.keys(props) });
  },
  Pick: (schema, keys, options) => {
    const want = new Set(Array.isArray(keys) ? keys : [keys]);
    const props = {};
    for (const [k, v] of Object.entries(schema.properties || {})) if (want.has(k)) props[k] = v;
    return Type.Object(props, options);
  },
  Omit: (schema, keys, options) => {
    const drop = new Set(Array.isArray(keys) ? keys : [keys]);
    const props = {};
    for (const [k, v] of Object.entries(schema.properties || {})) if (!drop.has(k)) props[k] = v;
    return Type.Object(props, options);
  },
  Composite: (schemas, options) => {
    const props = {};
    for (const s of schemas || []) Object.assign(props, s.properties || {});
    return Type.Object(props, options);
  },
  Ref: (ref, options) => create("Ref", { $ref: typeof ref === "string" ? ref : ref.$id }, options),
  Unsafe: (options) => create(options && options[Kind] ? options[Kind] : "Unsafe", {}, options),
  Strict: (schema) => JSON.parse(JSON.stringify(schema)),
  Void: (options) => create("Void", { type: "null" }, options),
  Undefined: (options) => create("Undefined", {}, options),
  Date: (options) => create("Date", { type: "string", format: "date-time" }, options),
};

module.exports = {
  __esModule: true,
  Type,
  default: Type,
  Kind,
  Hint,
  OptionalKind,
  ReadonlyKind,
  TransformKind,
  TypeGuard: {
    IsOptional: isOptional,
    IsSchema: (s) => !!s && typeof s === "object" && Kind in s,
    IsObject: (s) => !!s && s[Kind] === "Object",
  },
  FormatRegistry: { Set() {}, Has: () => false, Get: () => undefined, Delete() {}, Clear() {} },
};
