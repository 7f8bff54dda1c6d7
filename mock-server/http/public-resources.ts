import { toImageResource as domainImage } from '../domain/images/image-record.js';
import { toPredictionResource as domainPrediction } from '../domain/predictions/prediction-record.js';
import { withoutServerPaths } from './server-paths.js';

/** An image as clients see it: its `upload_error` (a decoder's or the file system's words) names no server file. */
export function toImageResource(...args: Parameters<typeof domainImage>): ReturnType<typeof domainImage> {
  const resource = domainImage(...args);
  const text = (resource as { upload_error?: unknown }).upload_error;
  return typeof text === 'string' ? { ...resource, upload_error: withoutServerPaths(text) } : resource;
}

/** A prediction as clients see it: its `error` names no server file. */
export function toPredictionResource(
  ...args: Parameters<typeof domainPrediction>
): ReturnType<typeof domainPrediction> {
  const resource = domainPrediction(...args);
  const text = (resource as { error?: unknown }).error;
  return typeof text === 'string' ? { ...resource, error: withoutServerPaths(text) } : resource;
}
