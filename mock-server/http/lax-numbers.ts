/**
 * A number read from a path or query string as FastAPI reads it: pydantic 2 in lax mode
 * (pydantic-core's `str_as_int` and `str_as_float`), so that the mock takes what production takes
 * and refuses the rest with production's `type` and `msg`. JavaScript's own reading (`Number`,
 * Ajv's coercion) took `0x1` as 1, a blank as 0 and `1e3` as the integer 1000, which pydantic
 * refuses.
 */

/** A string pydantic 2 does not read as the number asked for: its error's `type` and `msg`. */
export interface NumberRefusal {
  type: 'int_parsing' | 'int_parsing_size' | 'float_parsing';
  msg: string;
}

export type NumberKind = 'integer' | 'number';

const INT_PARSING: NumberRefusal = {
  type: 'int_parsing',
  msg: 'Input should be a valid integer, unable to parse string as an integer',
};
const INT_PARSING_SIZE: NumberRefusal = {
  type: 'int_parsing_size',
  msg: 'Unable to parse input string as an integer, exceeded maximum size',
};
const FLOAT_PARSING: NumberRefusal = {
  type: 'float_parsing',
  msg: 'Input should be a valid number, unable to parse string as a number',
};

/** Python's (and Rust's) limit on the digits of an integer read from a string. */
const MAX_INT_DIGITS = 4300;
/** Rust's `char::is_whitespace` (Unicode White_Space), which `str::trim` strips; not JavaScript's `\s`. */
const EDGE_SPACE =
  /^[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+|[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+$/g;
/** An integer as JSON writes it, what pydantic-core tries first. */
const JSON_INT = /^-?(?:0|[1-9]\d*)$/;
/** Rust's `f64::from_str`: `inf`, `infinity` and `nan` in any case, `1.`, `.5`, `1e3`; no hex, no blank. */
const RUST_FLOAT = /^[+-]?(?:inf|infinity|nan|(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?)$/i;

export function readNumber(kind: NumberKind, text: string): number | NumberRefusal {
  return kind === 'integer' ? readInteger(text) : readFloat(text);
}

/** The number a validated parameter holds, for its handler; undefined when absent. */
export function parameterNumber(kind: NumberKind, value: unknown): number | undefined {
  if (typeof value === 'number') return value;
  if (typeof value !== 'string') return undefined;
  const read = readNumber(kind, value);
  return typeof read === 'number' ? read : undefined;
}

function readInteger(text: string): number | NumberRefusal {
  if (JSON_INT.test(text))
    return text.replace('-', '').length > MAX_INT_DIGITS ? INT_PARSING_SIZE : Number(text);
  const cleaned = cleanIntText(text);
  return cleaned !== undefined && JSON_INT.test(cleaned) ? Number(cleaned) : INT_PARSING;
}

function readFloat(text: string): number | NumberRefusal {
  const trimmed = text.replace(EDGE_SPACE, '');
  if (RUST_FLOAT.test(trimmed)) return rustFloat(trimmed);
  // The underscores are tried on the text as it came, not trimmed, as pydantic-core does.
  const plain = withoutUnderscores(text);
  return plain !== undefined && RUST_FLOAT.test(plain) ? rustFloat(plain) : FLOAT_PARSING;
}

function rustFloat(text: string): number {
  const word = text.replace(/^[+-]/, '').toLowerCase();
  const sign = text.startsWith('-') ? -1 : 1;
  if (word === 'nan') return NaN;
  if (word === 'inf' || word === 'infinity') return sign * Infinity;
  return Number(text);
}

/**
 * pydantic-core's `clean_int_str`: trimmed, a leading `+` or `-` taken off, leading zeros stripped,
 * a `.0…` tail dropped and underscores between digits removed; undefined when nothing changed or
 * the text cannot be an integer.
 */
function cleanIntText(text: string): string | undefined {
  let s = text.replace(EDGE_SPACE, '');
  if (s.startsWith('+')) {
    if (s[1] === '-') return undefined;
    s = s.slice(1);
  }
  const negative = s.startsWith('-');
  if (negative) {
    if (s[1] === '-' || s[1] === '+') return undefined;
    s = s.slice(1);
  }
  const stripped = stripLeadingZeros(s);
  if (stripped === undefined) return undefined;
  s = stripped;
  const dot = s.indexOf('.');
  if (dot >= 0 && /^0+$/.test(s.slice(dot + 1))) s = s.slice(0, dot);
  const sign = negative ? '-' : '';
  const plain = withoutUnderscores(s);
  if (plain !== undefined) return sign + plain;
  return s.length === text.length ? undefined : sign + s;
}

/** pydantic-core's `strip_leading_zeros`: `000` is `0`, `00.0` is `0.0`, `0_1` is `1`; undefined for a non-digit start. */
function stripLeadingZeros(s: string): string | undefined {
  if (s === '' || !/[0-9-]/.test(s[0])) return undefined;
  if (s[0] !== '0') return s;
  for (let i = 1; i < s.length; i++) {
    const c = s[i];
    if (c === '0' || c === '_') continue;
    if (/[1-9-]/.test(c)) return s.slice(i);
    if (c === '.') return s.slice(i - 1);
    return undefined;
  }
  return s.slice(-1);
}

/** Underscores between digits taken out, as Python allows them (`1_000`); undefined when there are none or they are misplaced. */
function withoutUnderscores(s: string): string | undefined {
  if (!s.includes('_') || s.startsWith('_') || s.endsWith('_') || s.includes('__')) return undefined;
  return s.replaceAll('_', '');
}
