import type { Exchange, Finding } from './exchange.js';
import type { World } from './world.js';

/**
 * Requests sent at once (a client's `Promise.all`): the target may have taken them in any order,
 * and their answers may arrive in another. The model is sequential, so their answers are judged
 * as a whole: they agree with the interface when some order the target could have taken them in
 * (one that keeps a request answered before another was sent ahead of it) explains every answer.
 * Each order is tried from the same state; the first that explains all is kept. When none does,
 * the order the answers arrived in is the one judged, and its findings are the answer.
 */

/** At most this many orders are tried: requests sent at once are few (two or three). */
const MOST_ORDERS = 24;

/** The orders of `exchanges` the target may have taken them in, the order of arrival first. */
export function possibleOrders(exchanges: Exchange[]): Exchange[][] {
  const arrived = [...exchanges].sort((a, b) => a.receivedAt - b.receivedAt);
  const orders: Exchange[][] = [];
  const extend = (order: Exchange[], left: Exchange[]): void => {
    if (orders.length >= MOST_ORDERS) return;
    if (left.length === 0) return void orders.push(order);
    for (const next of left) {
      // a request answered before `next` was sent was surely taken before it
      if (left.some((other) => other !== next && other.receivedAt < next.sentAt)) continue;
      extend(
        [...order, next],
        left.filter((other) => other !== next),
      );
    }
  };
  extend([], arrived);
  return orders;
}

/**
 * Judges `exchanges` sent at once on `world`: leaves `world` as the order that explains them all
 * (or, when none does, the order of arrival) left it, and answers that order's findings.
 */
export function judgeOverlapping(
  world: World,
  exchanges: Exchange[],
  observe: (x: Exchange) => Finding[],
): Finding[] {
  const before = structuredClone(world);
  const orders = possibleOrders(exchanges);
  for (const order of orders) {
    if (order.every((x) => observe(x).length === 0)) return [];
    restore(world, before);
  }
  return orders[0].flatMap((x) => observe(x));
}

/** Puts `world` back as `saved` held it, fields added since taken out. */
function restore(world: World, saved: World): void {
  for (const field of Object.keys(world)) if (!(field in saved)) Reflect.deleteProperty(world, field);
  Object.assign(world, structuredClone(saved));
}
