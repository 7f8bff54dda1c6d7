/** What a case of the sabotage catalogue (sabotage-catalogue.ts) is made of, and what it edits. */

/** A request as the proxy received it; a case may edit it before it goes on. */
export interface Exchange {
  method: string;
  /** Path and query, as the client sent them. */
  path: string;
  headers: Headers;
  body: Buffer;
}

export interface Answer {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

export interface ProxyState {
  target: string;
  /** The proxy's own root: links in answers (part URLs, share URLs) are rewritten to it. */
  self: string;
  keys: { main: string; other: string };
  /** Presigned part URLs handed out, by path without query: what the client was given. */
  presigned: Map<string, URL>;
  /** Predictions already read once. */
  polled: Set<string>;
  /** Images deleted through the proxy. */
  deleted: Set<string>;
}

export interface SabotageCase {
  /** The clauses the broken build must make fail. */
  breaks: readonly string[];
  /** The check files to run against it. */
  files: readonly string[];
  /** A test-name pattern narrowing the run to the checks that matter (vitest -t). */
  only?: string;
  /** The failure must say this (e.g. that a value is outside the document, not a poll timeout). */
  message?: RegExp;
  /** Settings of the run (a seed and a run count for the stateful exploration). */
  env?: Record<string, string>;
  request?(exchange: Exchange, state: ProxyState): void | Promise<void>;
  response?(exchange: Exchange, answer: Answer, state: ProxyState): void | Promise<void>;
}
