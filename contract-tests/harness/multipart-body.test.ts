import { describe, expect, it } from 'vitest';
import { multipartFileOf } from './multipart-body.js';

async function encoded(bytes: Buffer, filename: string): Promise<{ body: Buffer; type: string }> {
  const form = new FormData();
  form.append('note', 'name="file" in a field value is no file part');
  form.append('file', new Blob([bytes], { type: 'image/tiff' }), filename);
  const request = new Request('http://localhost/', { method: 'POST', body: form });
  return { body: Buffer.from(await request.arrayBuffer()), type: request.headers.get('content-type')! };
}

describe('the file part of a multipart body sent as bytes', () => {
  it('reads its name and size under a boundary written bare or quoted', async () => {
    const bytes = Buffer.from('II*\0\r\n--not-the-boundary\r\n\r\nrest');
    const { body, type } = await encoded(bytes, 'Zellkerne µ.tif');
    const expected = { name: 'Zellkerne µ.tif', size: bytes.length };
    expect(multipartFileOf(body, type)).toEqual(expected);
    expect(multipartFileOf(body, type.replace(/boundary=(.*)$/, 'boundary="$1"'))).toEqual(expected);
  });

  it('finds none in a body of another type, or without a file part', async () => {
    const { body, type } = await encoded(Buffer.from('x'), 'a.tif');
    expect(multipartFileOf(body, 'application/octet-stream')).toBeUndefined();
    expect(multipartFileOf(body, undefined)).toBeUndefined();
    const form = new FormData();
    form.append('other', 'value');
    const request = new Request('http://localhost/', { method: 'POST', body: form });
    const other = Buffer.from(await request.arrayBuffer());
    expect(multipartFileOf(other, request.headers.get('content-type')!)).toBeUndefined();
    expect(type).toMatch(/^multipart\/form-data; boundary=/);
  });
});
