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

/** The one place a 422 item is built: every validation failure of the API goes through here. */
export function validationItem(
  loc: string[],
  msg: string,
  type: string,
  input: unknown = null,
  ctx: Record<string, unknown> = {},
): ValidationItem {
  return { loc, msg, type, input, ctx };
}
