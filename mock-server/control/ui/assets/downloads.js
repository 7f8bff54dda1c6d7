/* global document, URL, setTimeout */
// Export links point at the control plane's exports; a plain click could not send the admin token,
// so the file is fetched with it and handed to the browser as a download under the server's name.
import { fetchBinary } from './control-api.js';

function fileNameOf(response, fallback) {
  const header = response.headers.get('content-disposition') ?? '';
  const match = /filename="([^"]+)"/.exec(header);
  return match ? match[1] : fallback;
}

export async function downloadExport(href) {
  const response = await fetchBinary(href);
  const name = fileNameOf(response, href.split('/').pop());
  const url = URL.createObjectURL(await response.blob());
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  link.hidden = true;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
  return name;
}

let overlayUrl;

/** Shows the overlay PNG in a dialog (Escape or Close returns focus to the link). */
export async function showOverlay(href, title) {
  const response = await fetchBinary(href);
  if (overlayUrl) URL.revokeObjectURL(overlayUrl);
  overlayUrl = URL.createObjectURL(await response.blob());
  const dialog = document.getElementById('overlay-dialog');
  const image = document.getElementById('overlay-image');
  image.src = overlayUrl;
  image.alt = `Outlines of ${title}`;
  document.getElementById('overlay-dialog-title').textContent = `Overlay: ${title}`;
  dialog.showModal();
}
