import fc from 'fast-check';
import { edges, type DocumentBounds } from './document-bounds.js';

/**
 * The classes of input the exploration draws its arguments from, each built from the document's
 * bounds: a value at a bound, one inside, one past; strings empty, at their longest, past it,
 * non-ASCII and full of reserved characters; ids of the caller, in upper case, of another
 * organization, of nothing (one sharing a real id's first block or all but its last digit among
 * them), and no UUID at all; conditional headers naming the current file, a
 * stale one, any, a list, a weak tag. A command holds a class, and makes its value when it runs
 * (some depend on what the target answered: a part size, an ETag).
 */

/**
 * How a command names the resource it acts on: the caller's own id as handed out, in upper case or
 * in its `urn:uuid:` form (the document's format uuid takes both), another organization's, the
 * caller's own id of another kind of resource (an image's or a segmentation's id asked as a
 * prediction's: no lookup may find it across kinds), nobody's, nobody's sharing a real id's first
 * block or all of it but its last digit (near), and no UUID at all.
 */
export type IdClass =
  'own' | 'upper case' | 'urn form' | 'foreign' | 'another kind' | 'nobody' | 'near' | 'not a UUID';
// the caller's own ids weigh most: most states are reached through them
export const idClass = fc.constantFrom<IdClass>(
  'own',
  'own',
  'own',
  'own',
  'own',
  'own',
  'upper case',
  'urn form',
  'foreign',
  'another kind',
  'nobody',
  'near',
  'not a UUID',
);

const NOT_UUIDS = ['not-a-uuid', 'x', '1234', '00000000-0000-0000-0000-00000000000g'];

/**
 * The id a class names, given the caller's own id of that kind, another organization's, and the
 * caller's own ids of the other kinds (none made yet: nobody's id stands in).
 */
export function idOf(
  kind: IdClass,
  own: string | undefined,
  foreign: string | undefined,
  seed: number,
  otherKinds: readonly string[] = [],
): string {
  if (kind === 'upper case' && own) return own.toUpperCase();
  if (kind === 'urn form' && own) return `urn:uuid:${own}`;
  if (kind === 'foreign' && foreign) return foreign;
  if (kind === 'another kind' && otherKinds.length) return otherKinds[seed % otherKinds.length];
  if (kind === 'another kind') return idOf('nobody', undefined, undefined, seed);
  if (kind === 'nobody')
    return `${(seed % 0xffffffff).toString(16).padStart(8, '0')}-0000-4000-8000-000000000000`;
  if (kind === 'near') return nearOf(own, seed);
  if (kind === 'not a UUID') return own && seed % 2 ? own.slice(0, -1) : NOT_UUIDS[seed % NOT_UUIDS.length];
  return own ?? NOT_UUIDS[0];
}

/**
 * Nobody's id that shares a real one's first block (the dashboard's short id, eight hex digits),
 * or all of it but its last digit: a lookup by a prefix, or by a fixed width, finds the real one.
 */
export function nearOf(own: string | undefined, seed: number): string {
  const real = (own ?? '00000000-0000-4000-8000-000000000000').toLowerCase();
  const flip = (digit: string) => (digit === '0' ? '1' : '0');
  if (seed % 2) return real.slice(0, -1) + flip(real.slice(-1));
  const tail = `-0000-4000-8000-${(seed % 0xffffffff).toString(16).padStart(12, '0')}`;
  const near = real.slice(0, 8) + tail;
  return near === real ? real.slice(0, -1) + flip(real.slice(-1)) : near;
}

export type NameClass = 'plain' | 'empty' | 'longest' | 'one under' | 'one past' | 'non-ASCII' | 'reserved';
export const nameClass = fc.constantFrom<NameClass>(
  'plain',
  'plain',
  'empty',
  'longest',
  'one under',
  'one past',
  'non-ASCII',
  'reserved',
);

/** A name of the class, starting with the run's prefix where it fits (the throw-away organization goes anyway). */
export function nameOf(kind: NameClass, prefix: string, bounds: DocumentBounds): string {
  const padded = (length: number) => `${prefix}${'n'.repeat(Math.max(0, length - prefix.length - 4))}.tif`;
  switch (kind) {
    case 'empty':
      return '';
    case 'longest':
      return padded(bounds.name.max);
    case 'one under':
      return padded(bounds.name.max - 1);
    case 'one past':
      return padded(bounds.name.max + 1);
    case 'non-ASCII':
      return `${prefix}çélula-細胞-Ωmega-🦠.tif`;
    case 'reserved':
      return `${prefix}a/b\\c?d#e%20f"g<h>;i,j'k&l=m+n.tif`;
    default:
      return `${prefix}state.tif`;
  }
}

/**
 * A resumable upload's declared size: the TIFF it sends (so it converts and ends ready), a small
 * one of other bytes (ends failed), the document's size range at its ends, and the part size a
 * plan gave, at it, under and past (two parts).
 */
export type SizeClass =
  { kind: 'tiff' } | { kind: 'small' } | { kind: 'range'; at: number } | { kind: 'part'; offset: -1 | 0 | 1 };
export const sizeClass = (bounds: DocumentBounds): fc.Arbitrary<SizeClass> =>
  fc.oneof(
    { weight: 3, arbitrary: fc.constant({ kind: 'tiff' as const }) },
    { weight: 3, arbitrary: fc.constant({ kind: 'small' as const }) },
    {
      weight: 2,
      arbitrary: fc.constantFrom(...edges(bounds.size)).map((at) => ({ kind: 'range' as const, at })),
    },
    {
      weight: 2,
      arbitrary: fc.constantFrom<-1 | 0 | 1>(-1, 0, 1).map((offset) => ({ kind: 'part' as const, offset })),
    },
  );

/** How many bytes a part PUT sends against the part's own size. */
export const partBytes = fc.constantFrom(0, 0, 0, -1, 1);

/** A conditional request's If-None-Match, given the ETag the export last answered. */
export type Conditional = 'none' | 'current' | 'stale' | 'any' | 'list' | 'weak';
export const conditional = fc.constantFrom<Conditional>(
  'none',
  'none',
  'current',
  'stale',
  'any',
  'list',
  'weak',
);

export function ifNoneMatch(kind: Conditional, current: string | undefined): string | undefined {
  const stale = '"0123456789abcdef0123456789abcdef"';
  if (kind === 'stale') return stale;
  if (kind === 'any') return '*';
  if (!current || kind === 'none') return undefined;
  if (kind === 'list') return `${stale}, ${current}`;
  return kind === 'weak' ? `W/${current.replace(/^W\//, '')}` : current;
}

/** An export and its query, as the document declares the operation's options. */
export interface ExportAsked {
  operationId: 'exportOverlayPng' | 'exportMeasurementsCsv' | 'exportRoisGeojson' | 'exportRoisZip';
  query: Record<string, string | string[]>;
}

const optional = <T>(values: T[]): fc.Arbitrary<T | undefined> =>
  fc.oneof(fc.constant(undefined), fc.constantFrom(...values));

function overlayQuery(bounds: DocumentBounds): fc.Arbitrary<Record<string, string>> {
  const { maxSize, fillOpacity, outlineColor } = bounds.overlay;
  const colours = [outlineColor.fallback, outlineColor.fallback.toLowerCase(), '00ff7F', 'GGGGGG', 'FFF'];
  const opacities = [...edges(fillOpacity), (fillOpacity.min + fillOpacity.max) / 2].map((v) =>
    String(Math.round(v * 100) / 100),
  );
  return fc
    .record({
      max_size: optional([...edges(maxSize)].map(String)),
      outline_color: optional(colours),
      fill_opacity: optional(opacities),
    })
    .map(
      (q) =>
        Object.fromEntries(Object.entries(q).filter(([, v]) => v !== undefined)) as Record<string, string>,
    );
}

function csvQuery(bounds: DocumentBounds): fc.Arbitrary<Record<string, string[]>> {
  const columns = bounds.columns.length ? bounds.columns : ['roi_index'];
  return fc.oneof(
    fc.constant({}),
    fc.subarray(columns, { minLength: 1 }).map((c) => ({ columns: c })),
    fc.constant({ columns: [...columns].reverse() }),
    fc.constantFrom(...columns).map((c) => ({ columns: [c.toUpperCase()] })),
    fc.constantFrom(...columns).map((c) => ({ columns: [c, 'no_such_column'] })),
  );
}

export const exportAsked = (bounds: DocumentBounds): fc.Arbitrary<ExportAsked> =>
  fc.oneof(
    overlayQuery(bounds).map((query) => ({ operationId: 'exportOverlayPng' as const, query })),
    csvQuery(bounds).map((query) => ({ operationId: 'exportMeasurementsCsv' as const, query })),
    fc.constant({ operationId: 'exportRoisGeojson' as const, query: {} }),
    fc.constant({ operationId: 'exportRoisZip' as const, query: {} }),
  );

/** How a parts list names the upload's parts (none: no body; the service finds them). */
export type PartsList =
  'no body' | 'empty' | 'whole' | 'wrong ETag' | 'outside the plan' | 'first only' | 'reversed';
export const partsList = fc.constantFrom<PartsList>(
  'no body',
  'empty',
  'whole',
  'whole',
  'wrong ETag',
  'outside the plan',
  'first only',
  'reversed',
);
