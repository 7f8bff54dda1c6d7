/**
 * The interface sentences no black-box check can hold a target to, each with why: prose about the
 * document itself, advice to clients, permissions ("may"), and what the interface says it does not
 * show. Hand-kept: a sentence leaves this list when a clause can check it. Every other sentence
 * of the interface is testable, and one that no clause names (contract-tests/clauses.ts,
 * CLAUSE_SENTENCES) is a gap in the trace table and the reports.
 */
export interface Untestable {
  /** Sentence ids (contract-tests/trace/sentences.ts), or a test of the sentence's text. */
  sentences: readonly string[] | RegExp;
  why: string;
}

export const UNTESTABLE: Untestable[] = [
  {
    sentences: /\bnot shown\.?$/,
    why: 'The interface says it does not show this: there is nothing stated to hold a target to (where the project chose, the clause is `assumed` and names no sentence).',
  },
  {
    sentences: ['top.4de1bf', 'what-the-service-does.09af0e', 'what-the-service-does.d7660b'],
    why: 'Prose that introduces the document or a step; the steps themselves are the sentences that follow.',
  },
  {
    sentences: ['top.aa5e42', 'top.f3875a', 'versioning.c72a6e'],
    why: "Notation of the document: the placeholders and the /api/v1 prefix every operation is addressed under. Every check sends its requests there, so a target without the prefix fails every clause; no single clause is the prefix's.",
  },
  {
    sentences: ['versioning.19c7fe'],
    why: "The version of the description itself: no answer of the service carries it (the OpenAPI documents' info.version is held to it by openapi/document-quality.test.ts, not by the suite).",
  },
  {
    sentences: ['versioning.c136e2'],
    why: "That a staging environment exists is a fact about deployments: the suite runs against whatever root it is given (CONTRACT_BASE_URL), staging's included, and cannot discover one.",
  },
  {
    sentences: ['post-upload.ce634e', 'limits.80c18b'],
    why: 'Advice to clients on which upload mode suits which size: it promises no behaviour of the service.',
  },
  {
    sentences: ['image-upload-status.0844aa'],
    why: 'A permission ("may be removed"): a target that cleans failed images up and one that keeps them are both right, so no answer can break it.',
  },
  {
    sentences: ['upload-plan-object-upload.91a740'],
    why: 'upload_id is opaque and no operation takes it back (complete and abort name the image): any string is right.',
  },
];

/** The entry that excuses a sentence, if any. */
export function untestable(sentence: { id: string; text: string }): Untestable | undefined {
  return UNTESTABLE.find(({ sentences }) =>
    sentences instanceof RegExp ? sentences.test(sentence.text) : sentences.includes(sentence.id),
  );
}
