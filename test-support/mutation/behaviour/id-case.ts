import { behaviourMutant } from './behaviour-mutant.js';
import { route, setJson } from './proxy-effects.js';

/**
 * Ids compared with their case: a build that looks a path id up as sent (a text column, a map keyed
 * by the lower-case form) answers 404 for an id in upper case, which names the same UUID.
 */

const ALL_IDS_UUIDS = 'resources-and-their-fields.daa278';
const PATH_IDS_UUIDS = 'endpoints.350569';

/** A UUID path segment of the API with an upper-case hex digit. */
const UPPER_UUID =
  /^\/api\/v1\/.*\/(?=[0-9a-fA-F-]*[A-F])[0-9a-fA-F]{8}-(?:[0-9a-fA-F]{4}-){3}[0-9a-fA-F]{12}(?:\/|$)/;

export const idCaseMutants = () => [
  behaviourMutant({
    rule: 'id-case',
    edit: 'upper-case-not-found',
    summary:
      'A path id in upper case is looked up as sent: it answers 404 where its lower-case form is found.',
    sentences: [ALL_IDS_UUIDS, PATH_IDS_UUIDS],
    triggers: [['abortUpload', 200]],
    make: () => ({
      response: (exchange, answer) => {
        if (answer.status < 400 && UPPER_UUID.test(route(exchange)))
          setJson(answer, 404, { detail: 'Not found' });
      },
    }),
  }),
];
