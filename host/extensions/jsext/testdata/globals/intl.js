const r = {};
const t = (f) => { try { return f(); } catch (e) { return "ERR " + e.name + ": " + e.message; } };
const nf = (o, xs, loc = "en-US") => xs.map((x) => t(() => new Intl.NumberFormat(loc, o).format(x)));
const xs = [0, -0, 1, -1.5, 1234.5678, 1234567.891, 0.000123, 1e21, NaN, Infinity, -Infinity, 999.9999, 1.005, 2.5, -2.5, 0.5];
r.nf = {
  def: nf(undefined, xs),
  und: nf(undefined, [1234.5], undefined),
  frac: nf({ minimumFractionDigits: 2, maximumFractionDigits: 2 }, xs),
  max0: nf({ maximumFractionDigits: 0 }, xs),
  nogroup: nf({ useGrouping: false }, [1234567.891]),
  pct: nf({ style: "percent" }, [0.256, 1, 0.0001, 12.3456]),
  pct1: nf({ style: "percent", maximumFractionDigits: 1 }, [0.2567]),
  usd: nf({ style: "currency", currency: "USD" }, [1234.5, -3, 0.005]),
  eur: nf({ style: "currency", currency: "EUR" }, [1234.5]),
  jpy: nf({ style: "currency", currency: "JPY" }, [1234.5]),
  usdcode: nf({ style: "currency", currency: "USD", currencyDisplay: "code" }, [1]),
  compact: nf({ notation: "compact" }, [0, 999, 1000, 1234, 12345, 123456, 1234567, 15500000, 1e9, 1.5e12, 9999, 99999, 999999, -1234]),
  compactLong: nf({ notation: "compact", compactDisplay: "long" }, [1234, 1234567]),
  compact1: nf({ notation: "compact", maximumFractionDigits: 1 }, [1234, 1250000]),
  sig: nf({ maximumSignificantDigits: 3 }, [1234.5, 0.012345, 98765]),
  minsig: nf({ minimumSignificantDigits: 3 }, [1, 1.5]),
  minint: nf({ minimumIntegerDigits: 3 }, [5, 5.5]),
  sign: nf({ signDisplay: "always" }, [1, -1, 0]),
  signex: nf({ signDisplay: "exceptZero" }, [1, -1, 0]),
  unit: nf({ style: "unit", unit: "kilobyte" }, [1.5]),
  unitlong: nf({ style: "unit", unit: "second", unitDisplay: "long" }, [1, 2]),
  unitms: nf({ style: "unit", unit: "millisecond", unitDisplay: "narrow" }, [250]),
  de: nf(undefined, [1234.5], "en-GB"),
  bigint: t(() => new Intl.NumberFormat().format(12345678901234567890n)),
  parts: t(() => new Intl.NumberFormat("en-US").formatToParts(-1234.5)),
  resolved: t(() => new Intl.NumberFormat().resolvedOptions()),
  tls: [(1234.5).toLocaleString(), (1234.5).toLocaleString("en-US", { maximumFractionDigits: 0 }), (0.5).toLocaleString(undefined, { style: "percent" })],
  bad: t(() => new Intl.NumberFormat("en", { style: "currency" })),
};
const d = new Date(Date.UTC(2026, 0, 5, 15, 4, 5, 67));
const df = (o, loc = "en-US") => t(() => new Intl.DateTimeFormat(loc, { timeZone: "UTC", ...o }).format(d));
r.dtf = {
  def: df({}),
  dateStyles: ["full", "long", "medium", "short"].map((s) => df({ dateStyle: s })),
  timeStyles: ["full", "long", "medium", "short"].map((s) => df({ timeStyle: s })),
  both: df({ dateStyle: "medium", timeStyle: "short" }),
  ymd: df({ year: "numeric", month: "2-digit", day: "2-digit" }),
  mshort: df({ month: "short", day: "numeric" }),
  mlong: df({ month: "long", day: "numeric", year: "numeric" }),
  wd: df({ weekday: "long" }),
  wds: df({ weekday: "short", month: "short", day: "numeric" }),
  hm: df({ hour: "2-digit", minute: "2-digit" }),
  hm24: df({ hour: "2-digit", minute: "2-digit", hour12: false }),
  hms: df({ hour: "numeric", minute: "2-digit", second: "2-digit" }),
  h23: df({ hour: "2-digit", minute: "2-digit", second: "2-digit", hourCycle: "h23" }),
  full: df({ year: "numeric", month: "short", day: "numeric", hour: "numeric", minute: "2-digit", second: "2-digit" }),
  tzname: df({ hour: "numeric", timeZoneName: "short" }),
  ny: t(() => new Intl.DateTimeFormat("en-US", { timeZone: "America/New_York", dateStyle: "short", timeStyle: "long" }).format(d)),
  frac: df({ hour: "numeric", minute: "numeric", second: "numeric", fractionalSecondDigits: 3 }),
  year2: df({ year: "2-digit", month: "numeric" }),
  monthOnly: df({ month: "long" }),
  era: df({ year: "numeric", era: "short" }),
  parts: t(() => new Intl.DateTimeFormat("en-US", { timeZone: "UTC" }).formatToParts(d)),
  resolved: t(() => { const o = new Intl.DateTimeFormat("en-US", { timeZone: "UTC" }).resolvedOptions(); return [o.locale, o.calendar, o.numberingSystem, o.timeZone, o.year, o.month, o.day]; }),
  localTZ: typeof new Intl.DateTimeFormat().resolvedOptions().timeZone,
  caseTZ: new Intl.DateTimeFormat("en", { timeZone: "america/new_york" }).resolvedOptions().timeZone,
  badtz: t(() => new Intl.DateTimeFormat("en-US", { timeZone: "Mars/Base" })),
  invalid: t(() => new Intl.DateTimeFormat("en-US").format(new Date(NaN))),
  utcLocale: [d.toLocaleString("en-US", { timeZone: "UTC" }), d.toLocaleDateString("en-US", { timeZone: "UTC" }), d.toLocaleTimeString("en-US", { timeZone: "UTC" }), d.toLocaleDateString("en-US", { timeZone: "UTC", month: "short", day: "numeric" }), d.toLocaleTimeString("en-US", { timeZone: "UTC", hour: "2-digit", minute: "2-digit" })],
  midnight: t(() => new Intl.DateTimeFormat("en-US", { timeZone: "UTC", hour: "numeric", minute: "2-digit" }).format(Date.UTC(2026, 0, 1, 0, 7))),
  noon: t(() => new Intl.DateTimeFormat("en-US", { timeZone: "UTC", hour: "numeric" }).format(Date.UTC(2026, 0, 1, 12))),
};
const rtf = (o, pairs) => pairs.map(([v, u]) => t(() => new Intl.RelativeTimeFormat("en", o).format(v, u)));
const units = [[-1, "day"], [1, "day"], [0, "day"], [-3, "hours"], [2, "minute"], [-1, "second"], [0, "second"], [-1, "week"], [1, "month"], [-2, "year"], [1, "quarter"], [-1.5, "day"], [1000, "year"], [-1, "hour"], [0, "year"]];
r.rtf = { def: rtf(undefined, units), auto: rtf({ numeric: "auto" }, units), short: rtf({ style: "short" }, units), narrow: rtf({ style: "narrow" }, units), bad: t(() => new Intl.RelativeTimeFormat("en").format(1, "fortnight")) };
const pr = new Intl.PluralRules("en-US");
const po = new Intl.PluralRules("en-US", { type: "ordinal" });
r.pr = { card: [0, 1, 2, 1.0, 1.5, -1].map((n) => pr.select(n)), ord: [1, 2, 3, 4, 11, 12, 13, 21, 22, 23, 101, 111, 0].map((n) => po.select(n)), cats: pr.resolvedOptions().pluralCategories, ocats: po.resolvedOptions().pluralCategories, fr: new Intl.PluralRules("en", { minimumFractionDigits: 1 }).select(1) };
const words = ["b", "a", "B", "á", "A", "ä", "z", "10", "9", "item10", "item9", "Item2", "_x", "ß"];
r.coll = {
  def: [...words].sort(new Intl.Collator().compare),
  num: [...words].sort(new Intl.Collator(undefined, { numeric: true }).compare),
  base: ["a", "A", "á", "b"].map((w) => new Intl.Collator("en", { sensitivity: "base" }).compare("a", w)),
  accent: ["a", "A", "á"].map((w) => new Intl.Collator("en", { sensitivity: "accent" }).compare("a", w)),
  lc: ["a".localeCompare("b"), "b".localeCompare("a"), "a".localeCompare("a"), "a".localeCompare("A"), "a".localeCompare("A", undefined, { sensitivity: "base" }), "file10".localeCompare("file9", undefined, { numeric: true }), "résumé".localeCompare("resume", "en", { sensitivity: "base" })],
  upper: new Intl.Collator("en", { caseFirst: "upper" }).compare("a", "A"),
};
const seg = (g, s) => [...new Intl.Segmenter("en", { granularity: g }).segment(s)].map((x) => (g === "word" ? [x.segment, x.index, x.isWordLike] : [x.segment, x.index]));
r.seg = {
  graph: seg("grapheme", "e\u0301👍🏽🇫🇷a\r\nb👨‍👩‍👧"),
  word: seg("word", "Hello, wörld! it's 3.14 foo_bar"),
  sentence: t(() => seg("sentence", "Hi. Bye.")),
  containing: t(() => { const s = new Intl.Segmenter("en", { granularity: "word" }).segment("ab cd"); const c = s.containing(3); return [c.segment, c.index, c.isWordLike, s.containing(9)]; }),
  resolved: new Intl.Segmenter().resolvedOptions(),
};
r.lf = [t(() => new Intl.ListFormat("en", { style: "long", type: "conjunction" }).format(["a", "b", "c"])), t(() => new Intl.ListFormat("en", { type: "disjunction" }).format(["a", "b"])), t(() => new Intl.ListFormat("en").format(["a"])), t(() => new Intl.ListFormat("en", { style: "short", type: "unit" }).format(["1", "2", "3"]))];
r.misc = [Intl.getCanonicalLocales("EN-us"), Intl.NumberFormat.supportedLocalesOf(["en-US", "xx"]).length >= 1, typeof Intl.DateTimeFormat.prototype.formatRange, Object.prototype.toString.call(Intl), new Intl.NumberFormat().format === new Intl.NumberFormat().format, t(() => Intl.NumberFormat().format(1))];
module.exports = r;
