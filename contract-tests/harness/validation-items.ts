import { expect } from 'vitest';
import type { OperationSpec } from './openapi-contract.js';

/** One item of a FastAPI-style 422 detail array (VAL-02). */
export interface ValidationItem {
  loc: Array<string | number>;
  msg: string;
  type: string;
  input?: unknown;
  ctx?: unknown;
}

/**
 * A 422 about a field names it: an item at loc [`at`, field] ("body" for a body field, "query" for
 * a query parameter), echoing the value sent as its input when the value was there but wrong (for a
 * missing field there is no value to echo; a query parameter's value is the string sent).
 */
export function expectFieldError(
  detail: ValidationItem[],
  field: string,
  label: string,
  input?: unknown,
  at: 'body' | 'query' = 'body',
): void {
  const item = detail.find(
    (d) => Array.isArray(d.loc) && d.loc[0] === at && d.loc[d.loc.length - 1] === field,
  );
  expect(
    item,
    `${label}: a detail item at loc ["${at}", "${field}"] in ${JSON.stringify(detail)}`,
  ).toBeDefined();
  expect(item!.loc, `${label}: loc of the ${field} item`).toEqual([at, field]);
  if (input !== undefined)
    expect(item!.input, `${label}: input of the ${field} item echoes the value sent`).toEqual(input);
}

/**
 * The clause of the detail shape a non-UUID path id's 422 is judged by: the string's (VAL-03) where
 * the document answers a string (predict, prediction status, shares), the array's (VAL-02)
 * elsewhere. So an export's broken 422 never fails the string detail's clause.
 */
export function pathIdDetailClause(style: OperationSpec['validationStyle']): 'VAL-02' | 'VAL-03' {
  return style === 'string' ? 'VAL-03' : 'VAL-02';
}
