/**
 * The project compiles without the DOM library, and the generated fetch client
 * (openapi/generated/client) names the DOM's global `BodyInit`. Node's fetch is undici's, whose
 * types ship with @types/node: this gives the name the type Node's fetch actually takes.
 */
declare global {
  type BodyInit = import('undici-types').BodyInit;
}

export {};
