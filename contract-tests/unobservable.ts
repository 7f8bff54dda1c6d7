/**
 * The clause catalogue's other half: what the mutation harness (`npm run mutate`) changes in an
 * answer that no black-box client can tell from a correct answer, each with why. A mutant whose id
 * matches an entry and survives is reported as not observable, apart from the score; one that
 * matches and is killed counts as killed. Everything else that survives lowers the score until a
 * check kills it or an entry here says why none can.
 */
export interface Unobservable {
  /** Mutant ids (test-support/mutation/) this covers. */
  mutants: RegExp;
  /** The clause it would belong to, where there is one. */
  clause?: string;
  why: string;
}

export const UNOBSERVABLE: Unobservable[] = [
  {
    mutants: /^\w+\.(4\d\d|5\d\d)\.body\.detail:string$/,
    clause: 'ERR-01',
    why: 'An error detail is prose: the interface promises {detail: string}, not its words, so another sentence is as right as this one.',
  },
  {
    mutants: /^\w+\.422\.body\.detail\[\]\.(msg|type):(string|swap-\w+)$/,
    clause: 'VAL-02',
    why: "A FastAPI-style item's msg is prose and its type a code the document leaves open (type: string, no vocabulary): a client checks where the error is (loc) and what was sent (input), which the checks compare.",
  },
  {
    mutants: /^\w+\.422\.body\.detail\[\]\.ctx:drop$/,
    clause: 'VAL-02',
    why: "ctx is optional in the document's item (required: loc, msg, type), as FastAPI leaves it out of most errors.",
  },
  {
    mutants: /^(completeUpload|abortUpload)\.404\.status:403$/,
    clause: 'ISO-01',
    why: 'The document lets complete and abort answer 403, "not accessible with this key", for an image the key cannot reach: 403 and 404 are both right there.',
  },
  {
    mutants: /^(uploadImage|createImage)\.200\.body\.upload\.part_size:number$/,
    clause: 'UP-03',
    why: 'A part size one byte larger still covers the file in as many parts: the client cuts the parts it is told to, the store assembles what it is sent, and the image comes out the same.',
  },
  {
    mutants: /^(uploadImage|createImage)\.200\.body\.upload\.upload_id:string$/,
    why: 'upload_id is opaque: no operation takes it back (complete and abort name the image), so no client can tell one value from another.',
  },
];

/** The entry that excuses a surviving mutant, if any. */
export function unobservable(mutantId: string): Unobservable | undefined {
  return UNOBSERVABLE.find((entry) => entry.mutants.test(mutantId));
}
