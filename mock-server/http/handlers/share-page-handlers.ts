import { createReadStream } from 'node:fs';
import { sendFileStream } from '../send-file-stream.js';
import type { ApiResponse } from '../exchange.js';
import type { ShareService } from '../../domain/shares/share-service.js';
import type { OperationHandler } from '../operation-context.js';
import { renderSharePage, renderUnavailablePage } from '../share-page/render-share-page.js';

/** Public pages: no credential, and nothing served for a token that is not live. */
export interface SharePageUseCases {
  shares: Pick<ShareService, 'openPage' | 'resolveToken'>;
  settings: { shareBaseUrl: string; publicBaseUrl: string };
}

export function sharePageHandlers({ shares, settings }: SharePageUseCases): Record<string, OperationHandler> {
  return {
    async viewSharePage({ res, params }) {
      privateHeaders(res);
      const { live, organizationId } = await shares.openPage(params.share_token);
      // A view of the organization's own share is part of its clients' runs, the 404 of a revoked one
      // too: its journal lists it. The visitor's answer is the same as for a token never issued.
      res.locals.organizationId = organizationId;
      if (!live) return void res.status(404).type('html').send(renderUnavailablePage());
      res.type('html').send(
        renderSharePage({
          segmentation: live.segmentation,
          imageUrl: `${settings.shareBaseUrl}/share/${live.share.token}/image.png`,
          signInUrl: `${settings.publicBaseUrl}/login?next=${encodeURIComponent(`/share/${live.share.token}`)}`,
        }),
      );
    },

    async viewShareImage({ res, params }) {
      privateHeaders(res);
      const { live, organizationId } = await shares.resolveToken(params.share_token);
      if (!live || !live.segmentation.previewPath) {
        // A live share's image is loaded with its page, which is the view; a revoked one's 404 is
        // what a client that fetched it met, journaled for the organization as the page's is.
        if (!live) res.locals.organizationId = organizationId;
        return void res.status(404).json({ detail: 'Not Found' });
      }
      res.type('png');
      sendFileStream(createReadStream(live.segmentation.previewPath), res);
    },
  };
}

/** The token is the secret: never cached by shared caches, never sent on as a referrer. */
function privateHeaders(res: ApiResponse): void {
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('X-Robots-Tag', 'noindex');
}
