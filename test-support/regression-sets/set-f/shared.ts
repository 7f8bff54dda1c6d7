import { caller, isJson, readJson } from '../edit-helpers.js';
import type { Answer, Exchange, ProxyState } from '../regression.js';

/** What several of set F's regressions read: the caller's plan and usage, and JSON request bodies. */

export interface OrgRecord {
  id: string;
  name: string;
  plan: { name: string; storage_cap_images: number; monthly_analysis_cap: number };
  usage: { images: number; analyses_this_month: number; month: string };
}

/** The caller's organization as the service's own tables hold it (the dashboard's view). */
export async function orgRecord(exchange: Exchange, state: ProxyState): Promise<OrgRecord | undefined> {
  const org = caller(exchange, state);
  if (!org) return undefined;
  const answer = await state.upstream('GET', '/__mock/organizations');
  if (answer.status !== 200 || !isJson(answer)) return undefined;
  return readJson<OrgRecord[]>(answer).find((record) => record.id === org.id);
}

export function storageCapDetail(record: OrgRecord, capImages: number, stored: number): string {
  return (
    `Storage cap reached: the ${record.plan.name} plan allows ${capImages} images and ${stored} are stored ` +
    `(failed and aborted uploads count until deleted). Delete images to free space or upgrade the plan.`
  );
}

export function analysisCapDetail(record: OrgRecord, cap: number, used: number): string {
  return (
    `Monthly analysis cap reached: the ${record.plan.name} plan allows ${cap} analyses per month ` +
    `and ${used} were used in ${record.usage.month}.`
  );
}

/** A JSON request body, or undefined when there is none or it does not parse. */
export function requestJson<T = Record<string, unknown>>(exchange: Exchange): T | undefined {
  if (!exchange.body.length) return undefined;
  try {
    return JSON.parse(exchange.body.toString('utf8')) as T;
  } catch {
    return undefined;
  }
}

export function replaceAnswer(answer: Answer, next: Answer): void {
  answer.status = next.status;
  answer.headers = next.headers;
  answer.body = next.body;
}

/** The root of an upload path: POST /upload (both modes) and POST /image. */
export const UPLOAD = /^\/api\/v1\/upload$/;
export const CREATE_IMAGE = /^\/api\/v1\/image$/;
export const IMAGE_READ = /^\/api\/v1\/(?:upload|image)\/([^/]+)$/;
export const PREDICT = /^\/api\/v1\/predict$/;
export const PREDICTION = /^\/api\/v1\/predict\/([^/]+)$/;
export const EXPORT = /^\/api\/v1\/export\/([^/]+)\/([^/]+)$/;
export const SHARES = /^\/api\/v1\/shares$/;
export const SHARE = /^\/api\/v1\/shares\/([^/]+)$/;
export const COMPLETE = /^\/api\/v1\/upload\/([^/]+)\/complete$/;
