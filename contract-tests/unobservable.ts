/**
 * The clause catalogue's other half: what the mutation harness (`npm run mutate`) changes in an
 * answer that a black-box client cannot hold against the interface, each with the argument. A
 * mutant whose id matches an entry and survives is reported as not observable, apart from the
 * score; one that matches and is killed counts as killed. Everything else that survives lowers
 * the score until a check kills it or an entry here says why none can.
 *
 * Two kinds, audited entry by entry:
 * - `indistinguishable`: no client can tell the mutated answer from a right one: nothing stated,
 *   and no other answer, fixes the value (prose, opaque tokens, values the interface does not show).
 * - `both-right`: a client can see the difference, but the interface (and the document where it is
 *   silent) allows both answers, so the mutant is no broken build: an optional member left out, the
 *   403 the errors table lists beside 404. These stay listed so a change of the interface that
 *   makes one of them a promise shows up here.
 */
export interface Unobservable {
  /** Mutant ids (test-support/mutation/) this covers. */
  mutants: RegExp;
  /** The clause it would belong to, where there is one. */
  clause?: string;
  kind: 'indistinguishable' | 'both-right';
  why: string;
}

export const UNOBSERVABLE: Unobservable[] = [
  {
    // the CSV export's 422 is left out: for an unknown column its detail must name the column and
    // list the valid ones (EXP-03), so it is not free prose
    mutants: /^(?!exportMeasurementsCsv\.422\.)\w+\.(4\d\d|5\d\d)\.body\.detail:(string|stale)$/,
    clause: 'ERR-01',
    kind: 'indistinguishable',
    why: 'An error detail is prose: the interface promises {detail: string} and, for a 402, an explanation of the limit. The mutant appends a letter to the sentence or repeats an earlier answer of the same operation and status (so the same limit); either still explains the same thing. A detail that explains the other limit is a behaviour mutant (behaviour:*:402-names-*), not excused here.',
  },
  {
    mutants: /^\w+\.422\.body\.detail\[\]\.((msg|type):(string|stale|swap-\w+)|ctx:stale)$/,
    clause: 'VAL-02',
    kind: 'indistinguishable',
    why: "A FastAPI-style item's msg is prose, its type a code and its ctx an object the document leaves open (type: string, no vocabulary; ctx: any object): no stated value to tell another from, nor one another refusal's. Where the error is (loc) and what was sent (input) are stated, and the checks compare them: a swap of msg with input, or an earlier refusal's loc or input, is killed that way.",
  },
  {
    mutants: /^\w+\.422\.body\.detail\[\]\.ctx:drop$/,
    clause: 'VAL-02',
    kind: 'both-right',
    why: "A client sees ctx missing, but the interface's item is FastAPI's, which carries ctx only for errors with a context (a length bound, a pattern); the document marks it optional (required: loc, msg, type). An item without ctx is what the real service sends for a missing field.",
  },
  {
    mutants: /^(completeUpload|abortUpload)\.404\.status:403$/,
    clause: 'ISO-01',
    kind: 'both-right',
    why: 'The errors table lists 403 "image not accessible (complete, abort)" beside 404 for these two operations only: for an image the key cannot reach, 403 and 404 are both right there (elsewhere a 403 for a foreign id is killed: behaviour:confinement:foreign-403).',
  },
  {
    mutants: /^(uploadImage|createImage)\.200\.body\.upload\.part_size:number$/,
    clause: 'UP-03',
    kind: 'indistinguishable',
    why: 'A part size one byte larger with the same part URLs: while the URLs still number ceil(size / part_size), a client that cuts the chunks it is told to sends the same bytes in as many parts, the store assembles them in part order, and the image comes out the same, byte for byte. (Where the count would differ, UP-03 refuses a plan whose parts do not cover the size.)',
  },
  {
    mutants: /^(uploadImage|createImage)\.200\.body\.upload\.upload_id:string$/,
    kind: 'indistinguishable',
    why: 'upload_id is opaque: no operation takes it back (complete and abort name the image), so no client can tell one value from another.',
  },
  {
    mutants: /^listModels\.200\.body\.\[\]\.(version|description):(string|swap-\w+)$/,
    clause: 'ISO-02',
    kind: 'indistinguishable',
    why: "A model's version and description are not in the interface (other fields of a model: not shown) and no other answer carries them: a value changed the same way in every list has nothing to be held against. (An earlier read's description under another id is killed: ISO-02 refuses another organization's description.)",
  },
  {
    mutants: /^listModels\.200\.body\.\[\]\.(version|description):drop$/,
    clause: 'ISO-02',
    kind: 'both-right',
    why: 'A client sees the field missing, but the interface shows no field of a model besides its id and DESIGN.md asks for id, name and base or custom only: the document keeps version and description optional.',
  },
  {
    mutants: /^listModels\.200\.body\.\[\]\.version:stale$/,
    clause: 'ISO-02',
    kind: 'both-right',
    why: "An earlier list's version in the same slot: a client reading the list twice may see a model's version change, but the interface says nothing of versions (not shown), so a version that changes, or two models sharing one, breaks nothing stated.",
  },
  {
    mutants: /^abortUpload\.200\.body\.status:string$/,
    clause: 'UP-08',
    kind: 'indistinguishable',
    why: 'The interface shows that abort answers a `status` string but not its value: no stated value to tell another from. What abort did is read back from GET /upload/{id} (failed), which UP-08 checks.',
  },
  {
    mutants: /^createPrediction\.200\.body\.reason:string$/,
    clause: 'PRED-01',
    kind: 'indistinguishable',
    why: "`reason` is 'present in the shape' (interface): its words are not shown, so another string is as right as this one.",
  },
  {
    mutants: /^exportMeasurementsCsv\.200\.csv\.segmentation_source:change$/,
    clause: 'EXP-01',
    kind: 'indistinguishable',
    why: "The interface names the segmentation_source column but not what it holds, and no other answer carries a segmentation's source. The mutant changes every cell the same way (a letter appended), so the rows still agree with each other.",
  },
  {
    mutants: /^exportRoisGeojson\.200\.body\.features\[\]\.id:drop$/,
    clause: 'EXP-09',
    kind: 'both-right',
    why: "A client sees the feature id missing, but GeoJSON features' members are not shown by the interface and RFC 7946 makes a feature's id optional; properties.roi_id names the cell (EXP-09 ties it to the CSV row), and a feature id that is sent must equal it.",
  },
  {
    mutants: /^viewShareImage\.200\.png\.column:invert$/,
    clause: 'SHR-08',
    kind: 'indistinguishable',
    why: "The share page's assets are not shown by the interface: the preview may be a grey rendering, a thumbnail or an overlay, so no client knows which pixels it must have. The suite checks that it opens without credentials as a PNG on a live link and answers 404 once revoked.",
  },
  {
    mutants: /^export\w+\.200\.header\.etag:drop$/,
    clause: 'EXP-11',
    kind: 'both-right',
    why: "A client sees no ETag, but the interface does not say whether exports carry one (the document's is x-assumed and optional): a target that sends none is right, and EXP-11 then has no validator to hold. When one is sent, EXP-11 checks it (a 304 with the same ETag, new bytes under a new one).",
  },
];

/** The entry that excuses a surviving mutant, if any. */
export function unobservable(mutantId: string): Unobservable | undefined {
  return UNOBSERVABLE.find((entry) => entry.mutants.test(mutantId));
}
