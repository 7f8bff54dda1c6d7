import { EACH, type ResponseField } from './response-fields.js';

/** A place in a parsed body: the object or array holding a field, and the field's key there. */
interface Slot {
  parent: Record<string, unknown> | unknown[];
  key: string | number;
}

/** Every slot a field's path names in `body` (each element of an array for `[]`), present or not. */
export function slotsOf(body: unknown, path: string[]): Slot[] {
  let holders: unknown[] = [body];
  for (const segment of path.slice(0, -1)) {
    holders = holders.flatMap((holder) => {
      if (segment === EACH) return Array.isArray(holder) ? holder : [];
      return holder && typeof holder === 'object' && !Array.isArray(holder)
        ? [(holder as Record<string, unknown>)[segment]]
        : [];
    });
  }
  const last = path[path.length - 1];
  return holders.flatMap((holder): Slot[] => {
    if (last === EACH) return Array.isArray(holder) ? holder.map((_, key) => ({ parent: holder, key })) : [];
    return holder && typeof holder === 'object' && !Array.isArray(holder)
      ? [{ parent: holder as Record<string, unknown>, key: last }]
      : [];
  });
}

const read = (slot: Slot): unknown => (slot.parent as Record<string | number, unknown>)[slot.key];
const write = (slot: Slot, value: unknown): void => {
  (slot.parent as Record<string | number, unknown>)[slot.key] = value;
};
const present = (slot: Slot): boolean =>
  Array.isArray(slot.parent) ? true : Object.prototype.hasOwnProperty.call(slot.parent, slot.key);

/** A value the same field could hold, other than `value` (same type, same format): `undefined` when none. */
export type ValueChange = (value: unknown) => unknown;

const HOUR_MS = 3_600_000;

/** Another UUID of the same version and variant: the last hex digit moved on by one. */
function otherUuid(value: string): string {
  const last = value.slice(-1);
  const next = ((parseInt(last, 16) + 1) % 16).toString(16);
  return value.slice(0, -1) + next;
}

/** The changes within its type a field admits, by name (the name ends the mutant's id). */
export function valueChanges(field: ResponseField): Record<string, ValueChange> {
  const changes: Record<string, ValueChange> = {};
  const { types, format, values } = field;
  if (values && values.length > 1) {
    changes['enum-neighbour'] = (v) => {
      const i = values.indexOf(v);
      return i < 0 ? undefined : values[(i + 1) % values.length];
    };
  } else if (types.has('string') && format === 'uuid') {
    changes.uuid = (v) => (typeof v === 'string' && v.length ? otherUuid(v) : undefined);
  } else if (types.has('string') && format === 'date-time') {
    const shift = (ms: number) => (v: unknown) =>
      typeof v === 'string' && !Number.isNaN(Date.parse(v))
        ? new Date(Date.parse(v) + ms).toISOString()
        : undefined;
    changes['date-time+1h'] = shift(HOUR_MS);
    changes['date-time-1h'] = shift(-HOUR_MS);
  } else if (types.has('string')) {
    changes.string = (v) => (typeof v === 'string' ? `${v}x` : undefined);
  }
  if (types.has('integer') || types.has('number'))
    changes.number = (v) => (typeof v === 'number' ? v + 1 : undefined);
  if (types.has('boolean')) changes.boolean = (v) => (typeof v === 'boolean' ? !v : undefined);
  if (types.has('array'))
    changes['array-shorter'] = (v) => (Array.isArray(v) && v.length ? v.slice(0, -1) : undefined);
  return changes;
}

/** Applies `change` to every slot of `path` that holds a value it changes; answers whether any changed. */
export function changeAt(body: unknown, path: string[], change: ValueChange): boolean {
  let changed = false;
  for (const slot of slotsOf(body, path)) {
    if (!present(slot)) continue;
    const next = change(read(slot));
    if (next === undefined || JSON.stringify(next) === JSON.stringify(read(slot))) continue;
    write(slot, next);
    changed = true;
  }
  return changed;
}

/**
 * Removes the field wherever it is present (an array element is left alone: items are changed, not
 * dropped). An optional field that holds null is left too: absent and null say the same of it.
 */
export function dropAt(body: unknown, path: string[], required = true): boolean {
  let changed = false;
  for (const slot of slotsOf(body, path)) {
    if (Array.isArray(slot.parent) || !present(slot)) continue;
    if (!required && read(slot) === null) continue;
    delete (slot.parent as Record<string, unknown>)[slot.key];
    changed = true;
  }
  return changed;
}

/** Swaps two sibling fields' values wherever both are present and differ. */
export function swapAt(body: unknown, a: string[], b: string[]): boolean {
  const first = slotsOf(body, a);
  const second = slotsOf(body, b);
  let changed = false;
  first.forEach((slot, i) => {
    const other = second[i];
    if (!other || !present(slot) || !present(other)) return;
    const [x, y] = [read(slot), read(other)];
    if (JSON.stringify(x) === JSON.stringify(y)) return;
    write(slot, y);
    write(other, x);
    changed = true;
  });
  return changed;
}

/** The values of a field in `body`, in slot order (`undefined` where absent): what a stale read remembers. */
export function valuesAt(body: unknown, path: string[]): unknown[] {
  return slotsOf(body, path).map((slot) => (present(slot) ? read(slot) : undefined));
}

/** Writes remembered values back into their slots, where the slot exists and the value differs. */
export function restoreAt(body: unknown, path: string[], remembered: unknown[]): boolean {
  let changed = false;
  slotsOf(body, path).forEach((slot, i) => {
    const old = remembered[i];
    if (i >= remembered.length || JSON.stringify(old) === JSON.stringify(read(slot))) return;
    if (old === undefined) delete (slot.parent as Record<string | number, unknown>)[slot.key];
    else write(slot, old);
    changed = true;
  });
  return changed;
}
