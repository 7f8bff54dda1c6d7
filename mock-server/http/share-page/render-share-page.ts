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
  <p class="meta"><span data-testid="cell-count">${count}</span> cell${count === 1 ? '' : 's'} ·
  model <span data-testid="model-name">${escapeHtml(segmentation.modelName)}</span> ·
  <time datetime="${escapeHtml(segmentation.createdAt)}">${date}</time></p>
</header>
<main>
  <figure>
    <div class="stage" style="aspect-ratio: ${width} / ${height}">
      <img src="${escapeHtml(imageUrl)}" alt="Segmented microscopy image" width="${width}" height="${height}">
      <svg data-testid="outlines" viewBox="0 0 ${width} ${height}" preserveAspectRatio="none" aria-label="${count} cell outlines">${outlines}</svg>
    </div>
    <figcaption>${escapeHtml(segmentation.imageName)} · ${width} × ${height} px · view only</figcaption>
  </figure>
  <section class="downloads" aria-label="Downloads">
    <h2>Downloads</h2>
    <p>Measurements, ROIs and the overlay can be downloaded by signed-in members.</p>
    <button type="button" data-download="measurements.csv">Measurements (CSV)</button>
    <button type="button" data-download="rois.zip">ImageJ ROIs (ZIP)</button>
    <button type="button" data-download="rois.geojson">GeoJSON ROIs</button>
    <button type="button" data-download="overlay.png">Overlay (PNG)</button>
  </section>
  <dialog id="sign-in" aria-labelledby="sign-in-title">
    <h2 id="sign-in-title">Sign in to download</h2>
    <p>Downloading from a shared link needs an account. Sign in, or ask the person who shared this link to send you the file.</p>
    <p><a data-testid="sign-in-link" href="${escapeHtml(signInUrl)}">Sign in</a></p>
    <form method="dialog"><button>Close</button></form>
  </dialog>
</main>
<script>
  for (const button of document.querySelectorAll('[data-download]')) {
    button.addEventListener('click', () => document.getElementById('sign-in').showModal());
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
  .meta { margin: 0 0 1rem; color: #666; }
  .stage { position: relative; width: 100%; background: #000; }
  .stage img, .stage svg { position: absolute; inset: 0; width: 100%; height: 100%; }
  .stage img { image-rendering: pixelated; }
  .stage svg polygon { fill: rgba(255, 255, 0, .12); stroke: #ff0; stroke-width: 1; vector-effect: non-scaling-stroke; }
  figure { margin: 0; }
  figcaption { font-size: .9rem; color: #666; margin-top: .5rem; overflow-wrap: anywhere; }
  .downloads button { margin: .25rem .5rem .25rem 0; padding: .5rem .8rem; font: inherit; }
  dialog { max-width: 28rem; }
  .gone { text-align: center; padding-top: 4rem; }
  @media (min-width: 900px) { main { display: grid; grid-template-columns: 3fr 1fr; gap: 1.5rem; } }
</style>
</head>
<body>
${body}
</body>
</html>
`;
}

function escapeHtml(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string,
  );
}
