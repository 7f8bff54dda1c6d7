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
    mutants: /^\w+\.(4\d\d|5\d\d)\.body\.detail:(string|stale)$/,
    clause: 'ERR-01',
    why: "An error detail is prose: the interface promises {detail: string}, not its words, so another sentence (or an earlier answer's) is as right as this one.",
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
  {
    mutants: /^listModels\.200\.body\.\[\]\.(version|description):(drop|string|swap-\w+)$/,
    clause: 'ISO-02',
    why: "A model's version and description are not in the interface (DESIGN.md asks for id, name and base or custom): the document keeps them optional, and no other answer carries them to hold them against. (An earlier read's description under another id is killed: ISO-02 refuses another organization's description.)",
  },
  {
    mutants: /^listModels\.200\.body\.\[\]\.version:stale$/,
    clause: 'ISO-02',
    why: "An earlier list's version in the same slot is another model's version: versions are not names, two models may well share one (both at 1.0.0), and nothing else in the interface says which model has which.",
  },
  {
    mutants: /^abortUpload\.200\.body\.status:string$/,
    clause: 'UP-08',
    why: 'The interface shows that abort answers a `status` string but not its value; what abort did is read back from GET /upload/{id} (failed), which UP-08 checks.',
  },
  {
    mutants: /^createPrediction\.200\.body\.reason:string$/,
    clause: 'PRED-01',
    why: "`reason` is 'present in the shape' (interface): its words are not shown, so another string is as right as this one.",
  },
  {
    mutants: /^exportMeasurementsCsv\.200\.csv\.segmentation_source:change$/,
    clause: 'EXP-01',
    why: "The interface names the segmentation_source column but not what it holds, and no other answer carries a segmentation's source to hold it against.",
  },
  {
    mutants: /^exportRoisGeojson\.200\.body\.features\[\]\.id:drop$/,
    clause: 'EXP-09',
    why: "GeoJSON features' members are not shown by the interface, and RFC 7946 makes a feature's id optional; properties.roi_id names the cell (EXP-09 ties it to the CSV row), and a feature id that is sent must equal it.",
  },
  {
    mutants: /^viewShareImage\.200\.png\.column:invert$/,
    clause: 'SHR-08',
    why: "The share page's assets are not shown by the interface: the suite checks that the preview opens without credentials as a PNG on a live link and answers 404 once revoked, but what it looks like (a grey preview, a thumbnail, an overlay) is the service's choice.",
  },
  {
    mutants: /^export\w+\.200\.header\.etag:drop$/,
    clause: 'EXP-11',
    why: "The interface does not say whether exports carry an ETag (the document's is x-assumed and optional): a target that sends none is right, and EXP-11 then has no validator to hold. When one is sent, EXP-11 checks it (a 304 with the same ETag, new bytes under a new one).",
  },
];

/** The entry that excuses a surviving mutant, if any. */
export function unobservable(mutantId: string): Unobservable | undefined {
  return UNOBSERVABLE.find((entry) => entry.mutants.test(mutantId));
}
