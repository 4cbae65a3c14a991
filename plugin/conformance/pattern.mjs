// The pattern language of the conformance format (`tests/conformance/FORMAT.md`,
// "Patterns"; `host/src/gateway/pattern.rs`): what the scripted gateway matches calls with,
// and what the conformance runner checks answers against.

const MAX_SHOWN = 300;

/** A value, shortened for a report. */
export function show(value) {
  const text = value === undefined ? '(missing)' : JSON.stringify(value);
  if (text.length <= MAX_SHOWN) return text;
  return `${text.slice(0, MAX_SHOWN)}… (${Buffer.byteLength(text)} bytes)`;
}

export class Mismatch extends Error {
  constructor(path, expected, actual) {
    super(`at ${path || '/'}: expected ${expected}, got ${actual === undefined ? '(missing)' : show(actual)}`);
    this.path = path;
  }
}

function isUuidV4(s) {
  return /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(s);
}

const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
const has = (o, k) => Object.prototype.hasOwnProperty.call(o, k);

/** Throws a Mismatch where `actual` (undefined: missing) does not match `pattern`. */
export function check(pattern, actual, path = '') {
  if (typeof pattern === 'string') {
    if (pattern === '$absent') {
      if (actual !== undefined) throw new Mismatch(path, 'no value ($absent)', actual);
      return;
    }
    if (pattern === '$any') {
      if (actual === undefined) throw new Mismatch(path, 'a value ($any)', undefined);
      return;
    }
    if (pattern === '$uuid') {
      if (typeof actual !== 'string' || !isUuidV4(actual)) throw new Mismatch(path, 'a lower-case UUID v4', actual);
      return;
    }
    if (pattern.startsWith('$re:')) {
      const source = pattern.slice(4);
      let re;
      try {
        re = new RegExp(source, 'u');
      } catch {
        // Rust's regex allows escaping any punctuation; JavaScript only without the u flag.
        try {
          re = new RegExp(source);
        } catch (e) {
          throw new Mismatch(path, `a valid regex in the case (${e.message})`, source);
        }
      }
      if (typeof actual !== 'string' || !re.test(actual)) throw new Mismatch(path, `a string matching /${source}/`, actual);
      return;
    }
    if (pattern.startsWith('$contains:')) {
      const needle = pattern.slice('$contains:'.length);
      if (typeof actual !== 'string' || !actual.includes(needle)) throw new Mismatch(path, `a string containing ${show(needle)}`, actual);
      return;
    }
  }
  if (isObject(pattern) && Object.keys(pattern).length === 1 && has(pattern, '$not')) {
    if (actual === undefined) throw new Mismatch(path, 'a value ($not)', undefined);
    if (matches(pattern.$not, actual)) throw new Mismatch(path, `anything but ${show(pattern.$not)}`, actual);
    return;
  }
  if (isObject(pattern)) {
    if (!isObject(actual)) throw new Mismatch(path, 'an object', actual);
    for (const [key, sub] of Object.entries(pattern)) {
      if (key === '$exact') continue;
      check(sub, has(actual, key) ? actual[key] : undefined, `${path}/${key}`);
    }
    if (pattern.$exact === true) {
      const extra = Object.keys(actual).find((k) => !has(pattern, k));
      if (extra !== undefined) throw new Mismatch(`${path}/${extra}`, 'no such key ($exact)', actual[extra]);
    }
    return;
  }
  if (Array.isArray(pattern)) {
    if (!Array.isArray(actual)) throw new Mismatch(path, 'an array', actual);
    if (pattern.length !== actual.length) throw new Mismatch(path, `an array of ${pattern.length} elements`, actual);
    pattern.forEach((sub, i) => check(sub, actual[i], `${path}/${i}`));
    return;
  }
  if (typeof pattern === 'number') {
    if (typeof actual !== 'number' || actual !== pattern) throw new Mismatch(path, show(pattern), actual);
    return;
  }
  if (actual === undefined || actual !== pattern) throw new Mismatch(path, show(pattern), actual);
}

/** Whether `actual` matches `pattern`. */
export function matches(pattern, actual) {
  try {
    check(pattern, actual, '');
    return true;
  } catch (e) {
    if (e instanceof Mismatch) return false;
    throw e;
  }
}
