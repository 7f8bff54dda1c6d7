/**
 * A corpus of tampered bearer secrets that are not API keys: share tokens and presigned part-URL
 * signatures, each cut short, changed by one character, borrowed from another share or upload,
 * expired, padded with hostile bytes. Each answers the documented 4xx (404 for a share page, the S3
 * error for a part URL) and nothing it guards changes; none answers 5xx.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, tokenOf, type LinkShare } from '../../../test-support/api-client.js';
import { responseViolations } from '../../../test-support/document-responses.js';
import { startInstantMock } from '../../../test-support/instant-mock.js';
import type { RunningMock } from '../../server.js';
import type { EmbeddedObjectStore } from '../../stores/object-store/embedded-store.js';

let mock: RunningMock;
/** The embedded store keeps its own record of an upload: its listParts needs no caller's record. */
const embeddedStore = () => mock.services.store as EmbeddedObjectStore;
beforeAll(async () => {
  mock = await startInstantMock();
});
afterAll(() => mock.close());

/** The same character at `index` in another case or, for a digit or symbol, another character. */
function changeOne(text: string, index: number): string {
  const c = text[index];
  const other =
    c !== c.toUpperCase() ? c.toUpperCase() : c !== c.toLowerCase() ? c.toLowerCase() : c === '0' ? '1' : '0';
  return text.slice(0, index) + other + text.slice(index + 1);
}

describe('tampered share tokens', () => {
  let share: LinkShare;
  let other: LinkShare;
  let revoked: LinkShare;
  beforeAll(async () => {
    const api = apiClient(mock.url);
    const segmentation = await api.completedSegmentation();
    share = await api.createShare(segmentation.segmentationId);
    other = await api.createShare((await api.completedSegmentation()).segmentationId);
    const third = await api.completedSegmentation(undefined, segmentation.imageId);
    revoked = await api.createShare(third.segmentationId);
    expect((await api.call('DELETE', `/api/v1/shares/${revoked.id}`)).status).toBe(200);
  });

  it('answers 404 (documented) for every tampered token, page and image, and counts no view', async () => {
    const token = tokenOf(share);
    const corpus: Record<string, string> = {
      'last character dropped': token.slice(0, -1),
      'half of it': token.slice(0, token.length >> 1),
      'first character changed': changeOne(token, 0),
      'middle character changed': changeOne(token, token.length >> 1),
      'last character changed': changeOne(token, token.length - 1),
      'one character more': `${token}A`,
      'a revoked share': tokenOf(revoked),
      'NUL appended': `${token}%00`,
      'invalid UTF-8 appended': `${token}%ff`,
      'path traversal': `..%2f..%2f${token}`,
      'very long': token.repeat(200),
      'quotes and a tag': encodeURIComponent(`${token}"><script>1</script>`),
    };
    for (const [label, tampered] of Object.entries(corpus)) {
      for (const [operationId, suffix] of [
        ['viewSharePage', ''],
        ['viewShareImage', '/image.png'],
      ]) {
        const response = await fetch(`${mock.url}/share/${tampered}${suffix}`);
        const text = await response.text();
        expect(response.status, `${label}${suffix}`).toBe(404);
        expect(
          responseViolations(operationId, response.status, response.headers.get('content-type'), text),
          label,
        ).toEqual([]);
      }
    }
    expect((await apiClient(mock.url).getShare(share.id)).view_count).toBe(0);
  });

  it("opens another share's own segmentation with its token, never this one's", async () => {
    const mine = await (await fetch(share.url)).text();
    const theirs = await (await fetch(other.url)).text();
    expect(theirs).not.toBe(mine);
    expect((await apiClient(mock.url).getShare(share.id)).view_count).toBe(1);
    expect((await apiClient(mock.url).getShare(other.id)).view_count).toBe(1);
  });
});

describe('tampered presigned part URLs', () => {
  const api = () => apiClient(mock.url);
  const openUpload = async () => {
    const opened = await api().call('POST', '/api/v1/upload', { name: 'parts.tif', size: 1000 });
    expect(opened.status).toBe(200);
    return {
      imageId: opened.body.image.id as string,
      url: new URL(opened.body.upload.urls[0].url as string),
    };
  };
  const put = async (url: URL | string) => {
    const response = await fetch(url, { method: 'PUT', body: Buffer.alloc(1000, 7) });
    return { status: response.status, text: await response.text() };
  };
  const withParam = (url: URL, name: string, value: string | null) => {
    const changed = new URL(url);
    if (value === null) changed.searchParams.delete(name);
    else changed.searchParams.set(name, value);
    return changed;
  };

  it('refuses every tampered signature with the S3 error it documents, and keeps no part', async () => {
    const mine = await openUpload();
    const theirs = await openUpload();
    const signature = mine.url.searchParams.get('signature')!;
    const expectError = async (label: string, url: URL | string, status: number, code: string) => {
      const answer = await put(url);
      expect(answer.status, label).toBe(status);
      expect(answer.text, label).toContain(`<Code>${code}</Code>`);
    };
    await expectError(
      'signature cut short',
      withParam(mine.url, 'signature', signature.slice(0, -2)),
      403,
      'SignatureDoesNotMatch',
    );
    await expectError(
      'one character changed',
      withParam(mine.url, 'signature', changeOne(signature, 5)),
      403,
      'SignatureDoesNotMatch',
    );
    await expectError('no signature', withParam(mine.url, 'signature', null), 403, 'AccessDenied');
    await expectError('empty signature', withParam(mine.url, 'signature', ''), 403, 'AccessDenied');
    await expectError(
      'hostile bytes',
      withParam(mine.url, 'signature', `${signature}\u0000\r\n<x>`),
      403,
      'SignatureDoesNotMatch',
    );
    await expectError(
      'very long',
      withParam(mine.url, 'signature', signature.repeat(100)),
      403,
      'SignatureDoesNotMatch',
    );
    await expectError(
      'later expiry',
      withParam(mine.url, 'expires', String(Number(mine.url.searchParams.get('expires')) + 3600)),
      403,
      'SignatureDoesNotMatch',
    );
    await expectError(
      'expiry not a number',
      withParam(mine.url, 'expires', 'soon'),
      403,
      'SignatureDoesNotMatch',
    );
    // Another upload's path with this upload's signature, and the reverse.
    const wrongUpload = new URL(theirs.url);
    wrongUpload.searchParams.set('signature', signature);
    wrongUpload.searchParams.set('expires', mine.url.searchParams.get('expires')!);
    await expectError('wrong upload', wrongUpload, 403, 'SignatureDoesNotMatch');
    await expectError(
      'an upload that does not exist (the signature covers the path)',
      new URL(
        mine.url.pathname.replace(/uploads\/[^/]+/, 'uploads/mpu_nosuchupload') + mine.url.search,
        mine.url,
      ),
      403,
      'SignatureDoesNotMatch',
    );
    for (const upload of [mine, theirs])
      expect(await embeddedStore().listParts(upload.url.pathname.split('/')[3])).toEqual([]);
  });

  it('refuses an expired URL, then an aborted upload, and takes the untampered one in between', async () => {
    const upload = await openUpload();
    const operator = (body: unknown) => api().call('POST', '/__mock/clock', body, null);
    expect((await operator({ advance_ms: 2 * 86_400_000 })).status).toBe(200);
    const expired = await put(upload.url);
    expect(expired.status).toBe(403);
    expect(expired.text).toContain('Request has expired');
    expect((await operator({ reset: true })).status).toBe(200);
    expect((await put(upload.url)).status).toBe(200);
    expect((await api().call('POST', `/api/v1/upload/${upload.imageId}/abort`)).status).toBe(200);
    const aborted = await put(upload.url);
    expect(aborted.status).toBe(404);
    expect(aborted.text).toContain('<Code>NoSuchUpload</Code>');
  });
});
