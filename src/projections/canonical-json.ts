// Reads a JobCompleted event's fields from its stored JSON text without JSON.parse: the jobs read
// model stores JSON.stringify(data.result), and parsing a ~2 KB result only to stringify it again
// was half of a rebuild's CPU time. When the text is already in the form JSON.stringify writes,
// the result's text IS that string, so the rebuild can copy the slice.
//
// The slice is taken only when this strict scanner proves both of these, otherwise the caller parses
// as usual (never a guess; test/projections/canonical-json.test.ts checks it against JSON.parse on
// generated and mutated texts):
//  - JSON.parse(text) would succeed: the scanner is a validating JSON grammar, just a narrower one;
//  - JSON.stringify(JSON.parse(text).result) === the slice: no whitespace between tokens; strings
//    without escapes, control characters or surrogates (JSON.stringify writes such strings as they
//    are); numbers in the shortest form JavaScript prints (at most 15 significant digits, no exponent,
//    no trailing fraction zeros, no -0); no duplicate keys and no integer-like keys (JavaScript
//    objects list those first, which would reorder them).
// Both the store's canonical JSON (events/chain.ts, keys sorted) and plain JSON.stringify (ledgers
// written before it) are in this form.

/** Strings the scanner can take as their raw content: no escape, no control character, no surrogate. */
const UNSAFE_CHAR = /[\u0000-\u001f\\\ud800-\udfff]/;

/** Containers nested deeper than this are left to JSON.parse (the scanner recurses). */
const MAX_DEPTH = 64;

const QUOTE = 0x22;
const COMMA = 0x2c;
const COLON = 0x3a;
const MINUS = 0x2d;
const DOT = 0x2e;
const ZERO = 0x30;
const NINE = 0x39;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

const isDigit = (c: number) => c >= ZERO && c <= NINE;

/** Key spans of the objects being scanned (start and end offsets, pairs), shared to avoid allocating per object. */
let keySpans = new Int32Array(256);

/**
 * The end (exclusive) of the value starting at `i` when it is in canonical form, or -1. The caller
 * has checked that `t` has no UNSAFE_CHAR, so a string runs to the next quote.
 */
function valueEnd(t: string, i: number, depth: number, keyBase: number): number {
  const c = t.charCodeAt(i);
  if (c === QUOTE) {
    const close = t.indexOf('"', i + 1);
    return close < 0 ? -1 : close + 1;
  }
  if (c === OPEN_BRACE) return objectEnd(t, i, depth, keyBase, undefined);
  if (c === OPEN_BRACKET) {
    if (depth >= MAX_DEPTH) return -1;
    let j = i + 1;
    if (t.charCodeAt(j) === CLOSE_BRACKET) return j + 1;
    for (;;) {
      j = valueEnd(t, j, depth + 1, keyBase);
      if (j < 0) return -1;
      const next = t.charCodeAt(j);
      if (next === CLOSE_BRACKET) return j + 1;
      if (next !== COMMA) return -1;
      j++;
    }
  }
  if (c === MINUS || isDigit(c)) return numberEnd(t, i);
  if (t.startsWith('true', i)) return i + 4;
  if (t.startsWith('false', i)) return i + 5;
  if (t.startsWith('null', i)) return i + 4;
  return -1;
}

/**
 * As valueEnd for an object. `members`, when given, receives the span of each member's value by
 * key (the top level only). Keys are compared against the object's earlier keys: a duplicate
 * means JSON.parse would keep only the last value.
 */
function objectEnd(t: string, i: number, depth: number, keyBase: number, members: Map<string, [number, number]> | undefined): number {
  if (depth >= MAX_DEPTH) return -1;
  let j = i + 1;
  if (t.charCodeAt(j) === CLOSE_BRACE) return j + 1;
  let keyTop = keyBase;
  for (;;) {
    if (t.charCodeAt(j) !== QUOTE) return -1;
    const keyEnd = t.indexOf('"', j + 1);
    if (keyEnd < 0 || t.charCodeAt(keyEnd + 1) !== COLON) return -1;
    if (isIntegerLike(t, j + 1, keyEnd) || repeatsKey(t, j + 1, keyEnd, keyBase, keyTop)) return -1;
    if (keyTop + 2 > keySpans.length) {
      const bigger = new Int32Array(keySpans.length * 2);
      bigger.set(keySpans);
      keySpans = bigger;
    }
    keySpans[keyTop++] = j + 1;
    keySpans[keyTop++] = keyEnd;
    const start = keyEnd + 2;
    const end = valueEnd(t, start, depth + 1, keyTop);
    if (end < 0) return -1;
    members?.set(t.slice(j + 1, keyEnd), [start, end]);
    const next = t.charCodeAt(end);
    if (next === CLOSE_BRACE) return end + 1;
    if (next !== COMMA) return -1;
    j = end + 1;
  }
}

/** An array-index-like key ("0", "17"): JavaScript lists those first, so parse + stringify reorders them. */
function isIntegerLike(t: string, from: number, to: number): boolean {
  for (let k = from; k < to; k++) if (!isDigit(t.charCodeAt(k))) return false;
  return true; // the empty key too: rare, and left to JSON.parse
}

function repeatsKey(t: string, from: number, to: number, base: number, top: number): boolean {
  const length = to - from;
  for (let s = base; s < top; s += 2) {
    if (keySpans[s + 1]! - keySpans[s]! !== length) continue;
    let k = 0;
    while (k < length && t.charCodeAt(keySpans[s]! + k) === t.charCodeAt(from + k)) k++;
    if (k === length) return true;
  }
  return false;
}

/**
 * A number JavaScript prints back exactly as written: -?(0|[1-9]\d*)(\.\d*[1-9])?, at most 15
 * significant digits (any such decimal is the shortest form of its double), no exponent, not -0,
 * and not below 1e-6 (JavaScript writes those with an exponent).
 */
function numberEnd(t: string, i: number): number {
  let j = i;
  const negative = t.charCodeAt(j) === MINUS;
  if (negative) j++;
  const intStart = j;
  if (t.charCodeAt(j) === ZERO) j++;
  else if (isDigit(t.charCodeAt(j))) while (isDigit(t.charCodeAt(j))) j++;
  else return -1;
  const intDigits = j - intStart;
  const zeroInt = intDigits === 1 && t.charCodeAt(intStart) === ZERO;
  let significant = zeroInt ? 0 : intDigits;
  if (t.charCodeAt(j) === DOT) {
    j++;
    const fracStart = j;
    while (isDigit(t.charCodeAt(j))) j++;
    if (j === fracStart || t.charCodeAt(j - 1) === ZERO) return -1;
    if (zeroInt) {
      let lead = fracStart;
      while (t.charCodeAt(lead) === ZERO) lead++;
      if (lead - fracStart > 5) return -1;
      significant = j - lead;
    } else {
      significant += j - fracStart;
    }
  } else if (negative && zeroInt) {
    return -1;
  }
  const c = t.charCodeAt(j);
  if (significant > 15 || c === 0x65 || c === 0x45) return -1; // 'e', 'E'
  return j;
}

export interface CompletedFields {
  jobId: string;
  engineVersion: string;
  at: string;
  /** Exactly JSON.stringify(JSON.parse(text).result). */
  resultJson: string;
}

/**
 * The fields the read models take from a JobCompleted event, read off its stored text, or
 * undefined when the text is not in the form the scanner proves (the caller then parses it).
 */
export function completedFields(text: string): CompletedFields | undefined {
  if (text.charCodeAt(0) !== OPEN_BRACE || UNSAFE_CHAR.test(text)) return undefined;
  const members = new Map<string, [number, number]>();
  if (objectEnd(text, 0, 0, 0, members) !== text.length) return undefined;
  const str = (key: string): string | undefined => {
    const span = members.get(key);
    return span && text.charCodeAt(span[0]) === QUOTE ? text.slice(span[0] + 1, span[1] - 1) : undefined;
  };
  const jobId = str('jobId');
  const engineVersion = str('engineVersion');
  const at = str('at');
  const result = members.get('result');
  if (jobId === undefined || engineVersion === undefined || at === undefined || !result) return undefined;
  return { jobId, engineVersion, at, resultJson: text.slice(result[0], result[1]) };
}
