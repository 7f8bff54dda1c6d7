import escapeHtml from 'escape-html';

import type { SegmentationRecord } from '../../domain/predictions/prediction-record.js';

export interface SharePageView {
  segmentation: SegmentationRecord;
  imageUrl: string;
  signInUrl: string;
}

/**
 * The public page of a share: the image with the cell outlines drawn as SVG over it, the count, the
 * model and the date. View-only: the only controls are downloads, and each asks the visitor to sign
 * in. Nothing on the page names an id that unlocks anything else; the image is addressed by token.
 */
export function renderSharePage({ segmentation, imageUrl, signInUrl }: SharePageView): string {
  const { width, height, objects } = segmentation.result;
  const outlines = objects
    .map((o) => `<polygon points="${o.outline.map(([x, y]) => `${x},${y}`).join(' ')}"/>`)
    .join('');
  const date = segmentation.createdAt.slice(0, 10);
  const count = objects.length;
  return page(
    `${count} cells · shared segmentation`,
    `<header>
  <h1>Shared segmentation</h1>
  <p class="meta"><span class="nowrap"><strong data-testid="cell-count">${count}</strong> cell${count === 1 ? '' : 's'}</span> ·
  <span class="nowrap">model <span data-testid="model-name">${escapeHtml(segmentation.modelName)}</span></span> ·
  <time class="nowrap" datetime="${escapeHtml(segmentation.createdAt)}">${date}</time></p>
</header>
<main>
  <figure>
    <div class="stage" style="aspect-ratio: ${width} / ${height}; max-width: max(16rem, calc((100svh - 10rem) * ${width} / ${height}))">
      <img src="${escapeHtml(imageUrl)}" alt="Microscopy image ${escapeHtml(segmentation.imageName)}" width="${width}" height="${height}">
      <svg data-testid="outlines" role="img" viewBox="0 0 ${width} ${height}" preserveAspectRatio="none" aria-label="${count} cell outline${count === 1 ? '' : 's'} drawn over the image">${outlines}</svg>
    </div>
    <figcaption>${escapeHtml(segmentation.imageName)} · ${width} × ${height} px · view only</figcaption>
  </figure>
  <section class="downloads" aria-label="Downloads">
    <h2>Downloads</h2>
    <p>Measurements, ROIs and the overlay can be downloaded by signed-in members.</p>
    <div class="buttons">
      <button type="button" aria-haspopup="dialog" data-download="measurements.csv">Measurements (CSV)</button>
      <button type="button" aria-haspopup="dialog" data-download="rois.zip">ImageJ ROIs (ZIP)</button>
      <button type="button" aria-haspopup="dialog" data-download="rois.geojson">GeoJSON ROIs</button>
      <button type="button" aria-haspopup="dialog" data-download="overlay.png">Overlay (PNG)</button>
    </div>
  </section>
  <dialog id="sign-in" aria-labelledby="sign-in-title">
    <h2 id="sign-in-title">Sign in to download <span id="sign-in-file"></span></h2>
    <p>Downloading from a shared link needs an account. Sign in, or ask the person who shared this link to send you the file.</p>
    <div class="dialog-actions">
      <a class="primary" data-testid="sign-in-link" href="${escapeHtml(signInUrl)}">Sign in</a>
      <form method="dialog"><button>Close</button></form>
    </div>
  </dialog>
</main>
<script>
  for (const button of document.querySelectorAll('[data-download]')) {
    button.addEventListener('click', () => {
      document.getElementById('sign-in-file').textContent = button.textContent;
      document.getElementById('sign-in').showModal();
    });
  }
</script>`,
  );
}

export function renderUnavailablePage(): string {
  return page(
    'Link unavailable',
    `<main class="gone"><h1>This link is no longer available</h1>
<p>The shared result was turned off by its owner, or the link is incomplete. Ask the person who sent it for a new link.</p></main>`,
  );
}

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${escapeHtml(title)}</title>
<style>
  :root { color-scheme: light dark; font-family: system-ui, sans-serif; }
  body { margin: 0 auto; max-width: 1100px; padding: 1rem; line-height: 1.4; }
  h1 { font-size: 1.4rem; margin: 0 0 .25rem; }
  h2 { font-size: 1.1rem; margin: 0 0 .5rem; }
  .meta { margin: 0 0 1rem; color: GrayText; }
  .meta strong { color: CanvasText; }
  .nowrap { white-space: nowrap; }
  .stage { position: relative; width: 100%; margin: 0; background: #000; }
  .stage img, .stage svg { position: absolute; inset: 0; width: 100%; height: 100%; }
  .stage img { image-rendering: pixelated; }
  .stage svg polygon { fill: rgba(255, 255, 0, .12); stroke: #ff0; stroke-width: 1; vector-effect: non-scaling-stroke; }
  figure { margin: 0; }
  figcaption { font-size: .9rem; color: GrayText; margin-top: .5rem; overflow-wrap: anywhere; }
  .downloads { margin-top: 1.5rem; }
  .downloads p { margin: 0 0 .75rem; }
  .buttons { display: flex; flex-wrap: wrap; gap: .5rem; }
  .downloads button { padding: .6rem .9rem; min-height: 2.75rem; font: inherit; cursor: pointer; }
  button:focus-visible, a:focus-visible { outline: 3px solid Highlight; outline-offset: 2px; }
  dialog { max-width: min(28rem, calc(100vw - 2rem)); box-sizing: border-box; }
  dialog { border: 1px solid GrayText; border-radius: 6px; padding: 1.25rem; }
  dialog::backdrop { background: rgb(0 0 0 / .55); }
  dialog form { margin: 0; }
  .dialog-actions { display: flex; flex-wrap: wrap; gap: .75rem; align-items: center; margin-top: 1rem; }
  .dialog-actions a, .dialog-actions button { padding: .6rem 1rem; min-height: 2.75rem; box-sizing: border-box; font: inherit; border-radius: 4px; }
  .dialog-actions a.primary { display: inline-flex; align-items: center; background: #1a5fb4; color: #fff; text-decoration: none; font-weight: 600; }
  .gone { text-align: center; padding-top: 4rem; max-width: 34rem; margin: 0 auto; }
  @media (min-width: 900px) {
    main { display: grid; grid-template-columns: minmax(0, 3fr) minmax(14rem, 1fr); gap: 2rem; align-items: start; }
    .downloads { margin-top: 0; }
    .buttons { flex-direction: column; align-items: stretch; }
  }
</style>
</head>
<body>
${body}
</body>
</html>
`;
}
