// Intl for the root locale (formatted as en-US), made when a script first
// uses Intl or a toLocale… method: NumberFormat, DateTimeFormat,
// RelativeTimeFormat, PluralRules, Collator, Segmenter, ListFormat. Other
// locales are accepted and formatted as the root locale. Segmentation,
// collation, plural rules and time zones are Go's (intl.go).
"use strict";

module.exports = function (web) {
  const UNITS = {"byte": "{0} byte|{0} byte|{0} byte|{0} bytes|{0}B|{0}B", "kilobyte": "{0} kB|{0} kB|{0} kilobyte|{0} kilobytes|{0}kB|{0}kB", "megabyte": "{0} MB|{0} MB|{0} megabyte|{0} megabytes|{0}MB|{0}MB", "gigabyte": "{0} GB|{0} GB|{0} gigabyte|{0} gigabytes|{0}GB|{0}GB", "terabyte": "{0} TB|{0} TB|{0} terabyte|{0} terabytes|{0}TB|{0}TB", "petabyte": "{0} PB|{0} PB|{0} petabyte|{0} petabytes|{0}PB|{0}PB", "bit": "{0} bit|{0} bit|{0} bit|{0} bits|{0}bit|{0}bit", "kilobit": "{0} kb|{0} kb|{0} kilobit|{0} kilobits|{0}kb|{0}kb", "megabit": "{0} Mb|{0} Mb|{0} megabit|{0} megabits|{0}Mb|{0}Mb", "gigabit": "{0} Gb|{0} Gb|{0} gigabit|{0} gigabits|{0}Gb|{0}Gb", "millisecond": "{0} ms|{0} ms|{0} millisecond|{0} milliseconds|{0}ms|{0}ms", "microsecond": "{0} μs|{0} μs|{0} microsecond|{0} microseconds|{0}μs|{0}μs", "nanosecond": "{0} ns|{0} ns|{0} nanosecond|{0} nanoseconds|{0}ns|{0}ns", "second": "{0} sec|{0} sec|{0} second|{0} seconds|{0}s|{0}s", "minute": "{0} min|{0} min|{0} minute|{0} minutes|{0}m|{0}m", "hour": "{0} hr|{0} hr|{0} hour|{0} hours|{0}h|{0}h", "day": "{0} day|{0} days|{0} day|{0} days|{0}d|{0}d", "week": "{0} wk|{0} wks|{0} week|{0} weeks|{0}w|{0}w", "month": "{0} mth|{0} mths|{0} month|{0} months|{0}m|{0}m", "year": "{0} yr|{0} yrs|{0} year|{0} years|{0}y|{0}y", "percent": "{0}%|{0}%|{0} percent|{0} percent|{0}%|{0}%", "meter": "{0} m|{0} m|{0} meter|{0} meters|{0}m|{0}m", "kilometer": "{0} km|{0} km|{0} kilometer|{0} kilometers|{0}km|{0}km", "centimeter": "{0} cm|{0} cm|{0} centimeter|{0} centimeters|{0}cm|{0}cm", "millimeter": "{0} mm|{0} mm|{0} millimeter|{0} millimeters|{0}mm|{0}mm", "mile": "{0} mi|{0} mi|{0} mile|{0} miles|{0}mi|{0}mi", "foot": "{0} ft|{0} ft|{0} foot|{0} feet|{0}′|{0}′", "inch": "{0} in|{0} in|{0} inch|{0} inches|{0}″|{0}″", "kilogram": "{0} kg|{0} kg|{0} kilogram|{0} kilograms|{0}kg|{0}kg", "gram": "{0} g|{0} g|{0} gram|{0} grams|{0}g|{0}g", "pound": "{0} lb|{0} lb|{0} pound|{0} pounds|{0}#|{0}#", "liter": "{0} L|{0} L|{0} liter|{0} liters|{0}L|{0}L", "milliliter": "{0} mL|{0} mL|{0} milliliter|{0} milliliters|{0}mL|{0}mL", "celsius": "{0}°C|{0}°C|{0} degree Celsius|{0} degrees Celsius|{0}°C|{0}°C", "fahrenheit": "{0}°F|{0}°F|{0} degree Fahrenheit|{0} degrees Fahrenheit|{0}°|{0}°", "degree": "{0} deg|{0} deg|{0} degree|{0} degrees|{0}°|{0}°"};
  const ENGLISH = "en-US";

  // --- locales ------------------------------------------------------------
  const canonLocale = (tag) => {
    const s = String(tag);
    if (!/^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*$/.test(s)) throw new RangeError(`Incorrect locale information provided`);
    return s
      .split("-")
      .map((p, i) => (i === 0 ? p.toLowerCase() : p.length === 2 ? p.toUpperCase() : p.length === 4 ? p[0].toUpperCase() + p.slice(1).toLowerCase() : p.toLowerCase()))
      .join("-");
  };
  const localeList = (locales) => {
    if (locales === undefined) return [];
    const list = typeof locales === "string" || !locales[Symbol.iterator] ? [locales] : [...locales];
    return [...new Set(list.map(canonLocale))];
  };
  // The locale a formatter resolves to: an English one asked for, or en-US.
  const resolveLocale = (locales) => {
    const en = localeList(locales).find((l) => l === "en" || l.startsWith("en-"));
    return en ? en.replace(/-u-.*$/, "") : ENGLISH;
  };
  const supportedLocalesOf = (locales) => localeList(locales).filter((l) => l === "en" || l.startsWith("en-"));

  const opt = (o, name, allowed, fallback) => {
    let v = o[name];
    if (v === undefined) return fallback;
    v = String(v);
    if (allowed && !allowed.includes(v)) throw new RangeError(`Value ${v} out of range for Intl options property ${name}`);
    return v;
  };
  const numOpt = (o, name, lo, hi, fallback) => {
    let v = o[name];
    if (v === undefined) return fallback;
    v = Number(v);
    if (!(v >= lo && v <= hi)) throw new RangeError(`${name} value is out of range.`);
    return Math.floor(v);
  };
  const options = (o) => (o === undefined ? {} : Object(o));

  // --- numbers ------------------------------------------------------------
  // A finite non-negative number as decimal digits d (no leading zeros)
  // and the exponent e of the first: d[0].d[1…] × 10^e.
  const decimal = (x) => {
    if (typeof x === "bigint") {
      const s = (x < 0n ? -x : x).toString();
      return { d: s.replace(/0+$/, "") || "0", e: s.length - 1 };
    }
    if (x === 0) return { d: "0", e: 0 };
    const [m, ex] = x.toExponential().split("e");
    return { d: m.replace(".", "").replace(/0+$/, "") || "0", e: Number(ex) };
  };
  // roundTo keeps count digits, rounding half away from zero.
  const roundTo = (n, count) => {
    if (n.d === "0" || count >= n.d.length) return n;
    if (count < 0) return { d: "0", e: 0 };
    const up = n.d.charCodeAt(count) >= 53; // "5"
    let kept = n.d.slice(0, count);
    let e = n.e;
    if (up) {
      const digits = kept.split("").map(Number);
      let i = digits.length - 1;
      while (i >= 0 && digits[i] === 9) digits[i--] = 0;
      if (i < 0) {
        digits.unshift(1);
        e++;
      } else digits[i]++;
      kept = digits.join("");
    }
    kept = kept.replace(/0+$/, "");
    return kept === "" ? { d: "0", e: 0 } : { d: kept, e };
  };
  // fixed is the rounded number's integer and fraction digits.
  const fixed = (n) => {
    if (n.d === "0") return { int: "0", frac: "" };
    if (n.e >= 0) return { int: n.d.slice(0, n.e + 1).padEnd(n.e + 1, "0"), frac: n.d.slice(n.e + 1) };
    return { int: "0", frac: "0".repeat(-n.e - 1) + n.d };
  };
  const shift = (n, by) => (n.d === "0" ? n : { d: n.d, e: n.e + by });

  const CURRENCY = { USD: "$", EUR: "€", GBP: "£", JPY: "¥", INR: "₹", CNY: "CN¥", KRW: "₩", CAD: "CA$", AUD: "A$", MXN: "MX$", BRL: "R$", ILS: "₪", VND: "₫", TWD: "NT$", NZD: "NZ$", HKD: "HK$", PHP: "₱" };
  const CURRENCY_DIGITS = { JPY: 0, KRW: 0, VND: 0, CLP: 0, ISK: 0, HUF: 2, BHD: 3, KWD: 3, OMR: 3, JOD: 3, TND: 3 };
  const COMPACT = ["", "K", "M", "B", "T"];
  const COMPACT_LONG = ["", " thousand", " million", " billion", " trillion"];

  function NumberFormat(locales, o) {
    if (!new.target) return new NumberFormat(locales, o);
    o = options(o);
    const r = { locale: resolveLocale(locales), numberingSystem: "latn" };
    r.style = opt(o, "style", ["decimal", "percent", "currency", "unit"], "decimal");
    const currency = o.currency === undefined ? undefined : String(o.currency).toUpperCase();
    if (currency !== undefined && !/^[A-Z]{3}$/.test(currency)) throw new RangeError(`Invalid currency code : ${o.currency}`);
    if (r.style === "currency") {
      if (currency === undefined) throw new TypeError("Currency code is required with currency style.");
      r.currency = currency;
      r.currencyDisplay = opt(o, "currencyDisplay", ["symbol", "narrowSymbol", "code", "name"], "symbol");
      r.currencySign = opt(o, "currencySign", ["standard", "accounting"], "standard");
    }
    if (r.style === "unit") {
      if (o.unit === undefined) throw new TypeError("Unit is required with unit style.");
      r.unit = String(o.unit);
      if (!UNITS[r.unit]) throw new RangeError(`Invalid unit argument for Intl.NumberFormat() '${r.unit}'`);
      r.unitDisplay = opt(o, "unitDisplay", ["short", "long", "narrow"], "short");
    }
    r.notation = opt(o, "notation", ["standard", "scientific", "engineering", "compact"], "standard");
    if (r.notation === "compact") r.compactDisplay = opt(o, "compactDisplay", ["short", "long"], "short");
    r.minimumIntegerDigits = numOpt(o, "minimumIntegerDigits", 1, 21, 1);
    const cd = r.style === "currency" ? (CURRENCY_DIGITS[r.currency] ?? 2) : 0;
    const defMin = r.style === "currency" && r.notation !== "compact" ? cd : 0;
    const defMax = r.style === "currency" && r.notation !== "compact" ? Math.max(cd, defMin) : r.style === "percent" ? 0 : r.notation === "compact" ? 0 : 3;
    const hasSig = o.minimumSignificantDigits !== undefined || o.maximumSignificantDigits !== undefined;
    const hasFrac = o.minimumFractionDigits !== undefined || o.maximumFractionDigits !== undefined;
    r.roundingPriority = opt(o, "roundingPriority", ["auto", "morePrecision", "lessPrecision"], "auto");
    if (hasSig) {
      r.minimumSignificantDigits = numOpt(o, "minimumSignificantDigits", 1, 21, 1);
      r.maximumSignificantDigits = numOpt(o, "maximumSignificantDigits", r.minimumSignificantDigits, 21, 21);
    }
    if (!hasSig || r.roundingPriority !== "auto") {
      let min = numOpt(o, "minimumFractionDigits", 0, 100, undefined);
      let max = numOpt(o, "maximumFractionDigits", 0, 100, undefined);
      if (min === undefined) min = Math.min(defMin, max === undefined ? defMin : max);
      else if (max === undefined) max = Math.max(defMax, min);
      else if (min > max) throw new RangeError("maximumFractionDigits value is out of range.");
      r.minimumFractionDigits = min;
      r.maximumFractionDigits = max === undefined ? defMax : max;
    }
    r.compactRounding = r.notation === "compact" && !hasSig && !hasFrac;
    const g = o.useGrouping;
    r.useGrouping = g === undefined ? (r.notation === "compact" ? "min2" : "auto") : g === false || g === "false" ? false : g === true || g === "true" ? "always" : opt(o, "useGrouping", ["always", "auto", "min2"]);
    r.signDisplay = opt(o, "signDisplay", ["auto", "never", "always", "exceptZero", "negative"], "auto");
    r.roundingIncrement = 1;
    r.roundingMode = "halfExpand";
    r.trailingZeroDisplay = opt(o, "trailingZeroDisplay", ["auto", "stripIfInteger"], "auto");
    Object.defineProperty(this, "_r", { value: r });
  }
  const numberParts = (r, value) => {
    let x = typeof value === "bigint" ? value : Number(value);
    const parts = [];
    const push = (type, v) => parts.push({ type, value: v });
    const negative = typeof x === "bigint" ? x < 0n : x < 0 || Object.is(x, -0);
    let body = []; // the number's own parts
    let isZero = false;
    let compact = 0;
    if (typeof x !== "bigint" && Number.isNaN(x)) body.push({ type: "nan", value: "NaN" });
    else if (typeof x !== "bigint" && !Number.isFinite(x)) body.push({ type: "infinity", value: "∞" });
    else {
      let n = decimal(typeof x === "bigint" ? x : Math.abs(x));
      if (r.style === "percent") n = shift(n, 2);
      const round = (n) => {
        if (r.compactRounding) return roundTo(n, n.e >= 1 ? n.e + 1 : 2);
        if (r.maximumSignificantDigits !== undefined && r.roundingPriority === "auto") return roundTo(n, r.maximumSignificantDigits);
        return roundTo(n, n.e + r.maximumFractionDigits + 1);
      };
      if (r.notation === "compact" && n.d !== "0" && n.e >= 3) {
        compact = Math.min(4, Math.floor(n.e / 3));
        let m = round(shift(n, -3 * compact));
        if (m.e >= 3 && compact < 4) {
          compact++;
          m = round(shift(n, -3 * compact));
        }
        n = m;
      } else n = round(n);
      isZero = n.d === "0";
      let { int, frac } = fixed(n);
      if (r.maximumSignificantDigits !== undefined && r.roundingPriority === "auto") {
        const shown = (int === "0" ? "" : int).length + (int === "0" ? frac.replace(/^0+/, "").length : frac.length);
        const want = r.minimumSignificantDigits - Math.max(shown, int === "0" && frac === "" ? 1 : 0);
        if (want > 0) frac += "0".repeat(want);
      } else if (!r.compactRounding) {
        if (!(r.trailingZeroDisplay === "stripIfInteger" && frac === "")) frac = frac.padEnd(r.minimumFractionDigits, "0");
      }
      int = int.padStart(r.minimumIntegerDigits, "0");
      const group = r.useGrouping === "always" || r.useGrouping === "auto" || (r.useGrouping === "min2" && int.length >= 5);
      if (group && int.length > 3) {
        const first = int.length % 3 || 3;
        body.push({ type: "integer", value: int.slice(0, first) });
        for (let i = first; i < int.length; i += 3) body.push({ type: "group", value: "," }, { type: "integer", value: int.slice(i, i + 3) });
      } else body.push({ type: "integer", value: int });
      if (frac) body.push({ type: "decimal", value: "." }, { type: "fraction", value: frac });
      if (compact) {
        if (r.compactDisplay === "long") body.push({ type: "literal", value: " " }, { type: "compact", value: COMPACT_LONG[compact].trim() });
        else body.push({ type: "compact", value: COMPACT[compact] });
      }
    }
    let sign = "";
    switch (r.signDisplay) {
      case "auto":
        sign = negative ? "-" : "";
        break;
      case "always":
        sign = negative ? "-" : "+";
        break;
      case "exceptZero":
        sign = isZero || body[0].type === "nan" ? "" : negative ? "-" : "+";
        break;
      case "negative":
        sign = negative && !isZero ? "-" : "";
        break;
    }
    const signPart = () => sign && push(sign === "-" ? "minusSign" : "plusSign", sign);
    const accounting = r.currencySign === "accounting" && sign === "-";
    if (r.style === "currency") {
      const sym = CURRENCY[r.currency];
      const display = r.currencyDisplay === "narrowSymbol" && sym ? sym.replace(/^[A-Z]+(?=\$)/, "") : r.currencyDisplay !== "code" && r.currencyDisplay !== "name" ? sym : undefined;
      if (accounting) push("literal", "(");
      else signPart();
      if (display) push("currency", display);
      else push("currency", r.currency), push("literal", "\u00a0");
      parts.push(...body);
      if (accounting) push("literal", ")");
      return parts;
    }
    signPart();
    parts.push(...body);
    if (r.style === "percent") push("percentSign", "%");
    if (r.style === "unit") {
      const forms = UNITS[r.unit].split("|");
      const i = { short: 0, long: 2, narrow: 4 }[r.unitDisplay];
      const num = body.map((p) => p.value).join("");
      const tpl = forms[i + (num === "1" ? 0 : 1)];
      const [before, after] = tpl.split("{0}");
      if (before) parts.splice(0, 0, { type: "literal", value: before });
      if (after) {
        const m = /^(\s*)(.*)$/.exec(after);
        if (m[1]) push("literal", m[1]);
        push("unit", m[2]);
      }
    }
    return parts;
  };
  const join = (parts) => parts.map((p) => p.value).join("");
  const boundFormat = (self, key, fn) => {
    if (!self[key]) Object.defineProperty(self, key, { value: fn.bind(self) });
    return self[key];
  };
  Object.defineProperties(NumberFormat.prototype, {
    format: {
      get() {
        return boundFormat(this, "_format", function (x) {
          return join(numberParts(this._r, x));
        });
      },
      configurable: true,
    },
  });
  NumberFormat.prototype.formatToParts = function (x) {
    return numberParts(this._r, x);
  };
  NumberFormat.prototype.formatRange = function (a, b) {
    return this.format(a) + "–" + this.format(b);
  };
  const NF_RESOLVED = ["locale", "numberingSystem", "style", "currency", "currencyDisplay", "currencySign", "unit", "unitDisplay", "minimumIntegerDigits",
    "minimumFractionDigits", "maximumFractionDigits", "minimumSignificantDigits", "maximumSignificantDigits", "useGrouping", "notation", "compactDisplay",
    "signDisplay", "roundingIncrement", "roundingMode", "roundingPriority", "trailingZeroDisplay"];
  NumberFormat.prototype.resolvedOptions = function () {
    const o = {};
    for (const k of NF_RESOLVED) if (this._r[k] !== undefined) o[k] = this._r[k];
    return o;
  };
  NumberFormat.supportedLocalesOf = supportedLocalesOf;

  // --- plural rules ---------------------------------------------------------
  function PluralRules(locales, o) {
    if (!new.target) throw new TypeError("Constructor Intl.PluralRules requires 'new'");
    o = options(o);
    const type = opt(o, "type", ["cardinal", "ordinal"], "cardinal");
    const nf = new NumberFormat("en", { ...o, useGrouping: false, style: "decimal", notation: "standard" });
    Object.defineProperty(this, "_r", { value: { locale: resolveLocale(locales), type, nf } });
  }
  PluralRules.prototype.select = function (n) {
    return web.intlPlural(this._r.nf.format(Math.abs(Number(n))), this._r.type === "ordinal");
  };
  PluralRules.prototype.selectRange = function (_a, b) {
    return this.select(b);
  };
  PluralRules.prototype.resolvedOptions = function () {
    const n = this._r.nf.resolvedOptions();
    return {
      locale: this._r.locale, type: this._r.type, minimumIntegerDigits: n.minimumIntegerDigits,
      minimumFractionDigits: n.minimumFractionDigits, maximumFractionDigits: n.maximumFractionDigits,
      pluralCategories: this._r.type === "ordinal" ? ["few", "one", "two", "other"] : ["one", "other"],
      roundingIncrement: 1, roundingMode: "halfExpand", roundingPriority: "auto", trailingZeroDisplay: "auto",
    };
  };
  PluralRules.supportedLocalesOf = supportedLocalesOf;

  // --- relative time ----------------------------------------------------------
  const RT_UNITS = ["second", "minute", "hour", "day", "week", "month", "quarter", "year"];
  const RT_SHORT = { second: ["sec.", "sec."], minute: ["min.", "min."], hour: ["hr.", "hr."], day: ["day", "days"], week: ["wk.", "wk."], month: ["mo.", "mo."], quarter: ["qtr.", "qtrs."], year: ["yr.", "yr."] };
  const RT_NARROW = { second: "s", minute: "m", hour: "h", day: "d", week: "w", month: "mo", quarter: "q", year: "y" };
  const RT_AUTO = {
    day: { "-1": "yesterday", 0: "today", 1: "tomorrow" },
    hour: { 0: "this hour" },
    minute: { 0: "this minute" },
    second: { 0: "now" },
  };
  function RelativeTimeFormat(locales, o) {
    if (!new.target) throw new TypeError("Constructor Intl.RelativeTimeFormat requires 'new'");
    o = options(o);
    Object.defineProperty(this, "_r", {
      value: {
        locale: resolveLocale(locales), style: opt(o, "style", ["long", "short", "narrow"], "long"),
        numeric: opt(o, "numeric", ["always", "auto"], "always"), numberingSystem: "latn",
      },
    });
  }
  const rtParts = (r, value, unit) => {
    let u = String(unit);
    if (u.endsWith("s")) u = u.slice(0, -1);
    if (!RT_UNITS.includes(u)) throw new RangeError(`Invalid unit argument for Intl.RelativeTimeFormat.prototype.format() '${unit}'`);
    const v = Number(value);
    if (!Number.isFinite(v)) throw new RangeError("Invalid value");
    if (r.numeric === "auto") {
      const key = Object.is(v, -0) ? "0" : String(v);
      const short = r.style !== "long" && u !== "day";
      const name = short ? RT_SHORT[u][0] : u;
      const special = RT_AUTO[u] ? RT_AUTO[u][key] : { "-1": `last ${name}`, 0: `this ${name}`, 1: `next ${name}` }[key];
      if (special) return [{ type: "literal", value: special }];
    }
    const numParts = new NumberFormat("en").formatToParts(Math.abs(v)).map((p) => ({ ...p, unit: u }));
    const num = join(numParts);
    const plural = web.intlPlural(num.replace(/,/g, ""), false) === "one" ? 0 : 1;
    let label;
    if (r.style === "long") label = " " + u + (plural ? "s" : "");
    else if (r.style === "short") label = " " + RT_SHORT[u][plural];
    else label = u === "day" ? RT_NARROW[u] : RT_NARROW[u];
    if (r.style === "narrow" && u === "day") label = "d";
    const past = v < 0 || Object.is(v, -0);
    return past ? [...numParts, { type: "literal", value: label + " ago" }] : [{ type: "literal", value: "in " }, ...numParts, { type: "literal", value: label }];
  };
  RelativeTimeFormat.prototype.format = function (v, unit) {
    return join(rtParts(this._r, v, unit));
  };
  RelativeTimeFormat.prototype.formatToParts = function (v, unit) {
    return rtParts(this._r, v, unit);
  };
  RelativeTimeFormat.prototype.resolvedOptions = function () {
    return { ...this._r };
  };
  RelativeTimeFormat.supportedLocalesOf = supportedLocalesOf;

  // --- collation -------------------------------------------------------------
  function Collator(locales, o) {
    if (!new.target) return new Collator(locales, o);
    o = options(o);
    const usage = opt(o, "usage", ["sort", "search"], "sort");
    Object.defineProperty(this, "_r", {
      value: {
        locale: resolveLocale(locales), usage, sensitivity: opt(o, "sensitivity", ["base", "accent", "case", "variant"], "variant"),
        ignorePunctuation: !!o.ignorePunctuation, collation: "default", numeric: !!o.numeric,
        caseFirst: opt(o, "caseFirst", ["upper", "lower", "false"], "false"),
      },
    });
  }
  Object.defineProperty(Collator.prototype, "compare", {
    get() {
      const r = this._r;
      if (!this._compare) Object.defineProperty(this, "_compare", { value: web.intlCollator(r.sensitivity, r.numeric, r.caseFirst, r.ignorePunctuation) });
      return this._compare;
    },
    configurable: true,
  });
  Collator.prototype.resolvedOptions = function () {
    return { ...this._r };
  };
  Collator.supportedLocalesOf = supportedLocalesOf;

  // --- segmentation ------------------------------------------------------------
  function Segmenter(locales, o) {
    if (!new.target) throw new TypeError("Constructor Intl.Segmenter requires 'new'");
    o = options(o);
    Object.defineProperty(this, "_r", { value: { locale: resolveLocale(locales), granularity: opt(o, "granularity", ["grapheme", "word", "sentence"], "grapheme") } });
  }
  const segmentData = (input, start, end, word, wordLike) => {
    const d = { segment: input.slice(start, end), index: start, input };
    if (word) d.isWordLike = wordLike;
    return d;
  };
  class Segments {
    constructor(input, granularity) {
      this._input = input;
      this._g = granularity;
      this._b = null;
    }
    _bounds() {
      return this._b || (this._b = web.intlSegment(this._input, this._g));
    }
    containing(index = 0) {
      const i = Math.trunc(Number(index)) || 0;
      if (i < 0 || i >= this._input.length) return undefined;
      const b = this._bounds();
      const word = this._g === "word";
      const step = word ? 2 : 1;
      let start = 0;
      for (let k = 0; k < b.length; k += step) {
        if (i < b[k]) return segmentData(this._input, start, b[k], word, b[k + 1]);
        start = b[k];
      }
      return undefined;
    }
    *[Symbol.iterator]() {
      const b = this._bounds();
      const word = this._g === "word";
      const step = word ? 2 : 1;
      let start = 0;
      for (let k = 0; k < b.length; k += step) {
        yield segmentData(this._input, start, b[k], word, b[k + 1]);
        start = b[k];
      }
    }
  }
  Segmenter.prototype.segment = function (input) {
    return new Segments(String(input), this._r.granularity);
  };
  Segmenter.prototype.resolvedOptions = function () {
    return { ...this._r };
  };
  Segmenter.supportedLocalesOf = supportedLocalesOf;

  // --- lists ---------------------------------------------------------------------
  function ListFormat(locales, o) {
    if (!new.target) throw new TypeError("Constructor Intl.ListFormat requires 'new'");
    o = options(o);
    Object.defineProperty(this, "_r", {
      value: { locale: resolveLocale(locales), type: opt(o, "type", ["conjunction", "disjunction", "unit"], "conjunction"), style: opt(o, "style", ["long", "short", "narrow"], "long") },
    });
  }
  const listParts = (r, list) => {
    const items = [...list].map((x) => {
      if (typeof x !== "string") throw new TypeError(`Iterable yielded ${x} which is not a string`);
      return x;
    });
    let two, last, mid = ", ";
    if (r.type === "unit") {
      mid = r.style === "narrow" ? " " : ", ";
      two = last = mid;
    } else if (r.type === "disjunction") {
      two = " or ";
      last = ", or ";
    } else if (r.style === "long") {
      two = " and ";
      last = ", and ";
    } else if (r.style === "short") {
      two = " & ";
      last = ", & ";
    } else {
      two = ", ";
      last = ", ";
    }
    const parts = [];
    items.forEach((v, i) => {
      if (i > 0) parts.push({ type: "literal", value: items.length === 2 ? two : i === items.length - 1 ? last : mid });
      parts.push({ type: "element", value: v });
    });
    return parts;
  };
  ListFormat.prototype.format = function (list) {
    return join(listParts(this._r, list));
  };
  ListFormat.prototype.formatToParts = function (list) {
    return listParts(this._r, list);
  };
  ListFormat.prototype.resolvedOptions = function () {
    return { ...this._r };
  };
  ListFormat.supportedLocalesOf = supportedLocalesOf;

  // --- dates -----------------------------------------------------------------------
  const MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];
  const DAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];
  const US_ZONES = {
    EST: "Eastern Standard Time", EDT: "Eastern Daylight Time", CST: "Central Standard Time", CDT: "Central Daylight Time",
    MST: "Mountain Standard Time", MDT: "Mountain Daylight Time", PST: "Pacific Standard Time", PDT: "Pacific Daylight Time",
    AKST: "Alaska Standard Time", AKDT: "Alaska Daylight Time", HST: "Hawaii-Aleutian Standard Time", HDT: "Hawaii-Aleutian Daylight Time",
  };
  const FIELDS = ["weekday", "era", "year", "month", "day", "dayPeriod", "hour", "minute", "second", "fractionalSecondDigits", "timeZoneName"];
  const zoneOf = (name, ms) => {
    try {
      return web.intlZone(name, ms);
    } catch {
      throw new RangeError(`Invalid time zone specified: ${name}`);
    }
  };
  const pad2 = (n) => String(n).padStart(2, "0");
  const gmt = (off, long) => {
    if (off === 0) return "GMT";
    const a = Math.abs(off);
    const h = Math.floor(a / 60);
    const m = a % 60;
    return "GMT" + (off < 0 ? "-" : "+") + (long ? pad2(h) + ":" + pad2(m) : h + (m ? ":" + pad2(m) : ""));
  };
  const zoneName = (style, zone) => {
    const [canonical, off, abbr] = zone;
    if (style === "shortOffset") return off === 0 ? "GMT" : gmt(off, false);
    if (style === "longOffset") return off === 0 ? "GMT" : gmt(off, true);
    const utc = canonical === "UTC";
    if (style === "long" || style === "longGeneric") return utc ? "Coordinated Universal Time" : US_ZONES[abbr] || gmt(off, true);
    return utc ? "UTC" : US_ZONES[abbr] ? abbr : gmt(off, false);
  };

  // defaults: "date", "time" or "all" (which fields to show when none is asked for).
  function DateTimeFormat(locales, o, defaults) {
    if (!new.target) return new DateTimeFormat(locales, o, defaults);
    o = options(o);
    const r = { locale: resolveLocale(locales), calendar: "gregory", numberingSystem: "latn" };
    const tz = o.timeZone === undefined ? "" : String(o.timeZone);
    r.timeZone = zoneOf(tz, 0)[0];
    const hc = o.hour12 !== undefined ? (o.hour12 ? "h12" : "h23") : opt(o, "hourCycle", ["h11", "h12", "h23", "h24"], "h12");
    const f = {};
    f.weekday = opt(o, "weekday", ["narrow", "short", "long"]);
    f.era = opt(o, "era", ["narrow", "short", "long"]);
    f.year = opt(o, "year", ["2-digit", "numeric"]);
    f.month = opt(o, "month", ["2-digit", "numeric", "narrow", "short", "long"]);
    f.day = opt(o, "day", ["2-digit", "numeric"]);
    f.hour = opt(o, "hour", ["2-digit", "numeric"]);
    f.minute = opt(o, "minute", ["2-digit", "numeric"]);
    f.second = opt(o, "second", ["2-digit", "numeric"]);
    f.fractionalSecondDigits = numOpt(o, "fractionalSecondDigits", 1, 3, undefined);
    f.timeZoneName = opt(o, "timeZoneName", ["short", "long", "shortOffset", "longOffset", "shortGeneric", "longGeneric"]);
    const dateStyle = opt(o, "dateStyle", ["full", "long", "medium", "short"]);
    const timeStyle = opt(o, "timeStyle", ["full", "long", "medium", "short"]);
    const explicit = FIELDS.some((k) => f[k] !== undefined);
    if ((dateStyle || timeStyle) && explicit) throw new TypeError(`Can't set option ${FIELDS.find((k) => f[k] !== undefined)} when ${dateStyle ? "dateStyle" : "timeStyle"} is used`);
    if (dateStyle) {
      r.dateStyle = dateStyle;
      Object.assign(f, { full: { weekday: "long", month: "long", day: "numeric", year: "numeric" }, long: { month: "long", day: "numeric", year: "numeric" }, medium: { month: "short", day: "numeric", year: "numeric" }, short: { month: "numeric", day: "numeric", year: "2-digit" } }[dateStyle]);
    }
    if (timeStyle) {
      r.timeStyle = timeStyle;
      Object.assign(f, { hour: "numeric", minute: "2-digit" }, timeStyle !== "short" ? { second: "2-digit" } : {}, timeStyle === "full" ? { timeZoneName: "long" } : timeStyle === "long" ? { timeZoneName: "short" } : {});
    }
    if (!explicit && !dateStyle && !timeStyle) {
      const d = defaults || "date";
      if (d !== "time") Object.assign(f, { year: "numeric", month: "numeric", day: "numeric" });
      if (d !== "date") Object.assign(f, { hour: "numeric", minute: "2-digit", second: "2-digit" });
    }
    if (f.hour) r.hourCycle = hc;
    r.hour12 = f.hour ? hc === "h12" || hc === "h11" : undefined;
    Object.defineProperty(this, "_r", { value: r });
    Object.defineProperty(this, "_f", { value: f });
  }
  const dateParts = (self, value) => {
    const ms = value === undefined ? Date.now() : typeof value === "number" ? value : Number(value);
    if (!Number.isFinite(ms) || Math.abs(ms) > 8.64e15) throw new RangeError("Invalid time value");
    const r = self._r;
    const f = self._f;
    const zone = zoneOf(r.timeZone === "UTC" ? "UTC" : r.timeZone, ms);
    const t = new Date(Math.trunc(ms) + zone[1] * 60000);
    const P = (type, value) => ({ type, value: String(value) });
    const L = (value) => ({ type: "literal", value });
    const out = [];
    // the date
    const date = [];
    const textMonth = f.month && !/digit|numeric/.test(f.month);
    const year = t.getUTCFullYear();
    const yearPart = f.year && P("year", f.year === "2-digit" ? pad2(((year % 100) + 100) % 100) : year);
    const dayPart = f.day && P("day", f.day === "2-digit" ? pad2(t.getUTCDate()) : t.getUTCDate());
    if (textMonth) {
      const name = MONTHS[t.getUTCMonth()];
      date.push(P("month", f.month === "long" ? name : f.month === "short" ? name.slice(0, 3) : name[0]));
      if (dayPart) date.push(L(" "), dayPart);
      if (yearPart) date.push(L(dayPart ? ", " : " "), yearPart);
    } else {
      const list = [f.month && P("month", f.month === "2-digit" ? pad2(t.getUTCMonth() + 1) : t.getUTCMonth() + 1), dayPart, yearPart].filter(Boolean);
      list.forEach((p, i) => {
        if (i) date.push(L("/"));
        date.push(p);
      });
    }
    if (f.era) {
      if (date.length) date.push(L(" "));
      date.push(P("era", year > 0 ? { long: "Anno Domini", short: "AD", narrow: "A" }[f.era] : { long: "Before Christ", short: "BC", narrow: "B" }[f.era]));
    }
    const onlyWeekday = f.weekday && !date.length;
    if (f.weekday) {
      const name = DAYS[t.getUTCDay()];
      date.unshift(P("weekday", f.weekday === "long" ? name : f.weekday === "short" ? name.slice(0, 3) : name[0]), ...(date.length ? [L(", ")] : []));
    }
    // the time
    const time = [];
    const h12 = r.hourCycle === "h12" || r.hourCycle === "h11";
    if (f.hour) {
      const h = t.getUTCHours();
      let hv = r.hourCycle === "h12" ? h % 12 || 12 : r.hourCycle === "h11" ? h % 12 : r.hourCycle === "h24" ? h || 24 : h;
      time.push(P("hour", f.hour === "2-digit" || !h12 ? pad2(hv) : hv));
    }
    if (f.minute) {
      if (time.length) time.push(L(":"));
      time.push(P("minute", f.hour || f.second || f.minute === "2-digit" ? pad2(t.getUTCMinutes()) : t.getUTCMinutes()));
    }
    if (f.second) {
      if (time.length) time.push(L(":"));
      time.push(P("second", f.minute || f.second === "2-digit" ? pad2(t.getUTCSeconds()) : t.getUTCSeconds()));
    }
    if (f.fractionalSecondDigits) {
      if (time.length) time.push(L("."));
      time.push(P("fractionalSecond", String(t.getUTCMilliseconds()).padStart(3, "0").slice(0, f.fractionalSecondDigits)));
    }
    if (f.hour && h12) time.push(L(" "), P("dayPeriod", t.getUTCHours() < 12 ? "AM" : "PM"));
    if (f.timeZoneName) {
      if (time.length || date.length) time.push(L(" "));
      time.push(P("timeZoneName", zoneName(f.timeZoneName, zone)));
    }
    out.push(...date);
    if (date.length && time.length && time[0].type !== "literal") {
      out.push(L(onlyWeekday ? " " : r.dateStyle === "full" || r.dateStyle === "long" || (!r.dateStyle && (f.month === "long" || f.weekday === "long")) ? " at " : ", "));
    }
    out.push(...time);
    return out;
  };
  Object.defineProperty(DateTimeFormat.prototype, "format", {
    get() {
      return boundFormat(this, "_format", function (d) {
        return join(dateParts(this, d));
      });
    },
    configurable: true,
  });
  DateTimeFormat.prototype.formatToParts = function (d) {
    return dateParts(this, d);
  };
  DateTimeFormat.prototype.formatRange = function (a, b) {
    return this.format(a) + " – " + this.format(b);
  };
  DateTimeFormat.prototype.resolvedOptions = function () {
    const o = { ...this._r };
    for (const k of FIELDS) if (this._f[k] !== undefined && !this._r.dateStyle && !this._r.timeStyle) o[k] = this._f[k];
    if (o.hour12 === undefined) delete o.hour12;
    return o;
  };
  DateTimeFormat.supportedLocalesOf = supportedLocalesOf;

  const Intl = {
    NumberFormat, DateTimeFormat, RelativeTimeFormat, PluralRules, Collator, Segmenter, ListFormat,
    getCanonicalLocales: (l) => localeList(l),
    supportedValuesOf: (key) => ({ calendar: ["gregory"], numberingSystem: ["latn"], timeZone: ["UTC"] })[key] || [],
  };
  Object.defineProperty(Intl, Symbol.toStringTag, { value: "Intl", configurable: true });
  for (const C of [NumberFormat, DateTimeFormat, RelativeTimeFormat, PluralRules, Collator, Segmenter, ListFormat]) {
    Object.defineProperty(Intl, C.name, { value: C, writable: true, configurable: true, enumerable: false });
  }
  return Intl;
};
