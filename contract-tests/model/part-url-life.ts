import { isObject, show, type Exchange, type Finding } from './exchange.js';
import type { ImageRecord, World } from './world.js';

/**
 * How long a presigned part URL lives (openapi.yaml, UploadPartUrl.url, assumed): 24 hours from
 * the answer that handed the plan out, by the service's clock; a PUT up to that second is taken,
 * one after it answers 403 with an S3-style XML AccessDenied. The model holds the document's
 * lifetime, never the URL's own `expires`: a target that signs a shorter or longer life breaks it.
 */
export const PART_URL_LIFETIME_S = 86_400;

const LIFE =
  'A part URL is good for 24 hours (86400 seconds) from the answer that handed the plan out, by the service clock; a PUT after it answers 403 with an S3-style XML error (document, assumed)';

/** Control-plane operations that may move a clock a part URL lives by. */
const CLOCK_MOVES = ['mockSetClock', 'mockOrgSetClock', 'mockReset', 'mockLoadSnapshot'];

const ELAPSED =
  "; judged by the time the client saw pass from asking for the plan to the PUT's answer: no clock was moved meanwhile, so the service's cannot have run further";

/** A span of the target's clock, in ms: what it read while one request was on its way. */
export interface TargetSpan {
  from: number;
  to: number;
}

/**
 * The target's clock against the client's, learnt from an answer of the mock's clock (its `now`,
 * read at some instant between sending and receiving). Only the last such answer counts: a clock
 * moved since is unknown until the next one, so nothing about expiry is predicted meanwhile.
 */
export function learnClock(world: World, x: Exchange): void {
  if (CLOCK_MOVES.includes(x.operationId)) world.clockMoves++;
  // A reset of everything or a snapshot loaded puts the mock's clock where the model cannot see.
  if (['mockReset', 'mockLoadSnapshot'].includes(x.operationId)) world.targetClock = undefined;
  if (!['mockGetClock', 'mockSetClock'].includes(x.operationId)) return;
  const now = x.status === 200 && isObject(x.body) ? Date.parse(String(x.body.now)) : NaN;
  world.targetClock = Number.isNaN(now)
    ? undefined
    : { minusReceived: now - x.receivedAt, minusSent: now - x.sentAt };
}

/** What the target's clock read during `x`, when the model knows its clock. */
export function targetSpan(world: World, x: Exchange): TargetSpan | undefined {
  const clock = world.targetClock;
  return clock && { from: x.sentAt + clock.minusReceived, to: x.receivedAt + clock.minusSent };
}

const second = (ms: number) => Math.floor(ms / 1000);

/**
 * A PUT to a part URL of `image`, whose plan was handed out during `image.planIssued`: taken
 * (any answer but the expiry's 403 is the store's own business) while the URL lives, refused 403
 * with AccessDenied once it surely expired; near the boundary, where the two spans overlap,
 * nothing is predicted.
 */
export function judgePartLife(world: World, image: ImageRecord, x: Exchange): Finding[] {
  const issued = image.planIssued;
  const put = targetSpan(world, x);
  if (!issued || !put) return judgeElapsed(world, image, x);
  const expiresFrom = second(issued.from) + PART_URL_LIFETIME_S;
  const expiresTo = second(issued.to) + PART_URL_LIFETIME_S;
  const subject = `PUT a part URL of image ${image.id}, sent ${second(put.from) - expiresTo} s past its expiry at the latest`;
  const text = x.bytes.toString('utf8');
  if (second(put.to) <= expiresFrom && x.status === 403 && /<Code>AccessDenied<\/Code>/.test(text))
    return [
      { sentence: LIFE, subject, predicted: 'taken: the URL still lives', received: '403 AccessDenied' },
    ];
  if (second(put.from) > expiresTo && (x.status !== 403 || !/<Code>AccessDenied<\/Code>/.test(text)))
    return [
      {
        sentence: LIFE,
        subject,
        predicted: '403 with an S3-style XML AccessDenied',
        received: `${x.status} ${show(text.slice(0, 120))}`,
      },
    ];
  return [];
}

const expiredAnswer = (x: Exchange): boolean =>
  x.status === 403 && /<Code>AccessDenied<\/Code>/.test(x.bytes.toString('utf8'));

/**
 * A PUT to a part URL of `image` where the target's clock is unknown: no clock was moved since the
 * plan was asked for, so the service's clock ran no further between handing the plan out and
 * taking the PUT than the client's between sending the one and receiving the other. Within the
 * life less a second (the life is counted from a whole second), the URL surely lives, and the
 * expiry's 403 is wrong; a PUT later than that is left alone (nothing says how the clocks' rates
 * differ over a day).
 */
function judgeElapsed(world: World, image: ImageRecord, x: Exchange): Finding[] {
  const asked = image.planAsked;
  if (!asked || asked.clockMoves !== world.clockMoves || !expiredAnswer(x)) return [];
  const elapsed = x.receivedAt - asked.at;
  if (elapsed > (PART_URL_LIFETIME_S - 1) * 1000) return [];
  return [
    {
      sentence: LIFE + ELAPSED,
      subject: `PUT a part URL of image ${image.id}, answered ${(elapsed / 1000).toFixed(1)} s after its plan was asked for`,
      predicted: 'taken: the URL still lives',
      received: '403 AccessDenied',
    },
  ];
}
