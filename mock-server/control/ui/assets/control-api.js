/* global fetch, sessionStorage */
// Every call the page makes to the mock. The admin token lives in this tab's sessionStorage and
// travels only as a header; an organization's own key is used for the public API (exports).

const TOKEN_KEY = 'cellseg-mock.admin-token';

export class Unauthorized extends Error {}

export const token = {
  get: () => sessionStorage.getItem(TOKEN_KEY) ?? '',
  set: (value) => sessionStorage.setItem(TOKEN_KEY, value),
  clear: () => sessionStorage.removeItem(TOKEN_KEY),
};

function adminHeaders(extra = {}) {
  const value = token.get();
  return value ? { ...extra, authorization: `Bearer ${value}` } : extra;
}

async function answer(response) {
  if (response.status === 401) throw new Unauthorized('the admin token was refused');
  const text = await response.text();
  const body = text ? JSON.parse(text) : undefined;
  if (!response.ok) {
    const detail = body && body.detail !== undefined ? body.detail : response.statusText;
    throw new Error(`${response.status}: ${typeof detail === 'string' ? detail : JSON.stringify(detail)}`);
  }
  return body;
}

/** GET a control-plane resource as JSON. */
export async function read(path) {
  return answer(await fetch(path, { headers: adminHeaders(), cache: 'no-store' }));
}

/** Send a control-plane action with a JSON body. */
export async function act(method, path, body) {
  return answer(
    await fetch(path, {
      method,
      headers: adminHeaders(body === undefined ? {} : { 'content-type': 'application/json' }),
      body: body === undefined ? undefined : JSON.stringify(body),
    }),
  );
}

/**
 * A binary control-plane resource as the response: a thumbnail, or an export from the control
 * plane's copy of the export routes (the page holds no organization's key).
 */
export async function fetchBinary(path) {
  const response = await fetch(path, { headers: adminHeaders(), cache: 'no-store' });
  if (response.status === 401) throw new Unauthorized('the admin token was refused');
  if (!response.ok) {
    const text = await response.text();
    throw new Error(`${response.status}: ${text.slice(0, 200)}`);
  }
  return response;
}
