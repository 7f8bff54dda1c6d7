/**
 * One item of a FastAPI-style 422 `detail` array, as pydantic 2 writes it: where (`loc`), what
 * (`msg`, `type`), the value refused (`input`) and the rule's parameters (`ctx`).
 */
export interface ValidationItem {
  loc: string[];
  msg: string;
  type: string;
  input: unknown;
  ctx: Record<string, unknown>;
}

/** Characters of an item's `input` (its JSON text, about) past which it is cut (openapi.yaml). */
export const INPUT_ECHO_CHARS = 1024;

/** The one place a 422 item is built: every validation failure of the API goes through here. */
export function validationItem(
  loc: string[],
  msg: string,
  type: string,
  input: unknown = null,
  ctx: Record<string, unknown> = {},
): ValidationItem {
  return { loc, msg, type, input: boundedInput(input, { left: INPUT_ECHO_CHARS }), ctx };
}

/**
 * The refused value, cut once its text passes the budget: a string ends with `…`, a list or an
 * object ends early. A body may be a megabyte, and a missing field's item carries the whole object
 * it was missing from, once per missing field: echoed whole, a 422 could outgrow its request.
 */
function boundedInput(value: unknown, budget: { left: number }): unknown {
  if (typeof value === 'string') {
    if (value.length <= budget.left) {
      budget.left -= value.length + 2;
      return value;
    }
    const kept = value.slice(0, Math.max(budget.left, 0));
    budget.left = 0;
    return `${kept}…`;
  }
  if (value === null || typeof value !== 'object') {
    budget.left -= String(value).length;
    return value;
  }
  budget.left -= 2;
  if (Array.isArray(value)) {
    const out: unknown[] = [];
    for (const item of value) {
      if (budget.left <= 0) break;
      out.push(boundedInput(item, budget));
      budget.left -= 1;
    }
    return out;
  }
  const out: Record<string, unknown> = {};
  for (const [key, member] of Object.entries(value)) {
    if (budget.left <= 0) break;
    budget.left -= key.length + 4;
    out[key] = boundedInput(member, budget);
  }
  return out;
}
