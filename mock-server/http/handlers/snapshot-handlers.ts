import { pipeline } from 'node:stream/promises';
import type { ApiResponse } from '../exchange.js';
import type { SnapshotService } from '../../domain/snapshots/snapshot-service.js';
import type { SnapshotScope } from '../../domain/snapshots/snapshot-rows.js';
import { answerAfterDiscardingRest, type DiscardLimits } from '../discard-rest.js';
import { sendDetail, sendDomainError } from '../error-responses.js';
import { isJsonMediaType, mediaType } from '../json-body.js';
import type { OperationHandler } from '../operation-context.js';
import { pulledBody } from '../pulled-body.js';

export interface SnapshotUseCases {
  snapshots: Pick<SnapshotService, 'take' | 'load'>;
}

/** The control plane's snapshots (docs/persistence.md, "Snapshots"): take one as a tar, load one. */
export function snapshotHandlers(
  { snapshots }: SnapshotUseCases,
  discardLimits: DiscardLimits,
): Record<string, OperationHandler> {
  const send = async (res: ApiResponse, scope: SnapshotScope) => {
    const archive = await snapshots.take(scope);
    res.setHeader('Content-Type', 'application/x-tar');
    res.setHeader('Content-Disposition', 'attachment; filename="snapshot.tar"');
    res.setHeader('Content-Length', archive.size);
    await pipeline(archive.read(), res);
  };
  return {
    mockGetSnapshot: ({ res }) => send(res, { kind: 'mock' }),

    mockOrgGetSnapshot: ({ res, org }) => send(res, { kind: 'organization', organizationId: org.id }),

    async mockLoadSnapshot({ req, res }) {
      const type = mediaType(req);
      // A JSON body was read (and validated) before the handler: there is no archive left to read.
      if (isJsonMediaType(type)) {
        const detail = `Unsupported Content-Type '${type}': send the snapshot archive as the body, Content-Type application/x-tar.`;
        return sendDetail(res, 415, detail);
      }
      const body = pulledBody(req);
      try {
        res.json(await snapshots.load(body));
      } catch (error) {
        body.release();
        // Refused part-way: the client is told why once the rest of its body is read (or given up).
        if (req.complete) throw error;
        await answerAfterDiscardingRest(req, res, discardLimits, () => {
          if (!sendDomainError(res, error)) throw error;
        });
      }
    },
  };
}
