import { createHash } from 'node:crypto';
import type { ApiClient } from '../../harness/api-client.js';
import type { CheckContext } from '../../harness/check.js';
import type { DocumentBounds } from './document-bounds.js';

/**
 * What the exploration's commands share: the real side (the target, through two keys of one
 * throw-away organization) and the handles the sequence made. Handles only: the oracle keeps the
 * state and predicts every answer.
 */
export interface Real {
  ctx: CheckContext;
  /** The organization's first key, and a second key of the same organization. */
  clients: [ApiClient, ApiClient];
  /** Every model the organization lists (base models and each version of its custom ones). */
  models: string[];
  bounds: DocumentBounds;
  /** Ids of another organization's image, prediction, segmentation and share. */
  foreign: Partial<Record<'image' | 'prediction' | 'segmentation' | 'share', string>>;
}

/** A resumable upload the sequence opened: its plan and what its parts were PUT with. */
export interface OpenedPlan {
  size: number;
  partSize: number;
  urls: string[];
  /** The bytes the upload stands for: the TIFF (it converts) or bytes of no image (it fails). */
  tiff: boolean;
  /** The ETag each part's last PUT answered. */
  etags: Record<number, string>;
}

export interface Handles {
  images: string[];
  /** Images an answer showed ready: a prediction mostly picks one of these, to reach segmentations. */
  ready: string[];
  predictions: string[];
  segmentations: string[];
  shares: string[];
  /** Each share's link, by share id. */
  links: Record<string, string>;
  plans: Record<string, OpenedPlan>;
  /** The last ETag each export URL answered, for conditional requests. */
  etags: Record<string, string>;
  /** The image each prediction was asked for, and the segmentation a poll of it showed. */
  predicted: Record<string, { image: string; segmentation?: string }>;
  /** The part size the last plan gave (the target's own), for sizes at a part's bound. */
  partSize?: number;
}

export const emptyHandles = (): Handles => ({
  images: [],
  ready: [],
  predictions: [],
  segmentations: [],
  shares: [],
  links: {},
  plans: {},
  etags: {},
  predicted: {},
});

/** The kinds of resource an id names, as the handles hold them. */
export type IdKind = 'images' | 'predictions' | 'segmentations' | 'shares';

/** The sequence's own ids of every kind but `kind`: what a command asks for as another kind's id. */
export const otherKinds = (handles: Readonly<Handles>, kind: IdKind): string[] =>
  (['images', 'predictions', 'segmentations', 'shares'] as const)
    .filter((other) => other !== kind)
    .flatMap((other) => handles[other]);

export const pick = <T>(items: T[], index: number): T | undefined =>
  items.length ? items[index % items.length] : undefined;

/** Bytes of no image, shared by every PUT that sends them (a part is at most a plan's part size). */
let filler = Buffer.alloc(0);
export function junk(length: number): Buffer {
  if (filler.length < length) filler = Buffer.alloc(length, 7);
  return filler.subarray(0, length);
}

export const md5Tag = (bytes: Buffer): string => `"${createHash('md5').update(bytes).digest('hex')}"`;

/** Runs one command's requests, then fails it with what the oracle found in their answers. */
export async function judged(real: Real, what: string, requests: () => Promise<unknown>): Promise<void> {
  const violations = real.clients[0].violations;
  const before = violations.length;
  await requests();
  const found = violations.slice(before);
  if (found.length) throw new Error(`${what}:\n- ${found.join('\n- ')}`);
}
