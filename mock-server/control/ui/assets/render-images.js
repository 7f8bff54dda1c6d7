// Images with their state, thumbnail, size and shape; each one's predictions with their state,
// cell count, exports and overlay; each completed prediction's shares.
import { h } from './dom.js';
import { bytes, dateTime, shape } from './format.js';

const EXPORTS = ['measurements.csv', 'rois.geojson', 'rois.zip'];
// The buttons of a prediction in flight: the outcome each forces, its label and its class.
const OUTCOMES = [
  ['COMPLETED', 'Complete', 'small'],
  ['FAILED', 'Fail', 'small danger'],
];

function shareItem(share) {
  return h(
    'li',
    { class: 'share', dataset: { shareId: share.id } },
    h(
      'a',
      {
        href: share.url,
        target: '_blank',
        rel: 'noopener noreferrer',
        dataset: { key: `share-${share.id}` },
      },
      share.revoked_at ? 'Public link (revoked)' : 'Public link',
    ),
    ` · ${share.view_count} view${share.view_count === 1 ? '' : 's'}`,
    ` · last view ${dateTime(share.last_viewed_at)}`,
    share.revoked_at
      ? h('span', { class: 'badge failed' }, `revoked ${dateTime(share.revoked_at)}`)
      : h('span', { class: 'badge ready' }, 'live'),
  );
}

function predictionItem(p, image, ctx) {
  const model = ctx.modelName(image.organization_id, p.model_id);
  // The control plane takes a forced outcome until a prediction finishes: SUBMITTED or STARTED
  // (organization-wide, "Next prediction" in the controls forces the next one).
  const canForce = p.status === 'SUBMITTED' || p.status === 'STARTED';
  const label = `prediction of ${image.name} with ${model}`;
  return h(
    'li',
    { class: 'prediction', dataset: { predictionId: p.prediction_id } },
    h(
      'div',
      { class: 'row' },
      h('span', { class: `badge ${p.status.toLowerCase()}`, 'data-testid': 'prediction-status' }, p.status),
      h('span', {}, model),
      p.cell_count !== undefined ? h('span', { 'data-testid': 'cell-count' }, `${p.cell_count} cells`) : null,
      h('span', { class: 'muted' }, dateTime(p.created_at)),
    ),
    p.error ? h('p', { class: 'error' }, p.error) : null,
    canForce
      ? h(
          'div',
          { class: 'row' },
          OUTCOMES.map(([status, verb, className]) =>
            h(
              'button',
              {
                type: 'button',
                class: className,
                'aria-label': `${verb} ${label}`,
                dataset: { key: `${verb.toLowerCase()}-${p.prediction_id}` },
                onclick: () => ctx.onOutcome(p.prediction_id, status),
              },
              verb,
            ),
          ),
        )
      : null,
    p.segmentation_id
      ? h(
          'nav',
          { class: 'exports', 'aria-label': `Exports of ${label}` },
          EXPORTS.map((name) => {
            const href = `/__mock/exports/${p.segmentation_id}/${name}`;
            return h(
              'a',
              {
                href,
                download: '',
                dataset: { export: name, key: `export-${p.segmentation_id}-${name}` },
                onclick: (event) => ctx.onExport(event, href),
              },
              name,
            );
          }),
          h(
            'a',
            {
              href: `/__mock/exports/${p.segmentation_id}/overlay.png`,
              dataset: { export: 'overlay.png', key: `overlay-${p.segmentation_id}` },
              onclick: (event) =>
                ctx.onOverlay(event, `/__mock/exports/${p.segmentation_id}/overlay.png`, image.name),
            },
            'overlay',
          ),
        )
      : null,
    p.shares.length ? h('ul', { class: 'shares', 'aria-label': 'Shares' }, p.shares.map(shareItem)) : null,
  );
}

export function renderImages(images, ctx) {
  if (images.length === 0)
    return [
      h('p', { class: 'empty', 'data-testid': 'no-images' }, 'No images yet. Upload one through the API.'),
    ];
  return images.map((image) =>
    h(
      'article',
      { class: 'card image', 'aria-labelledby': `image-${image.id}`, dataset: { imageId: image.id } },
      h(
        'div',
        { class: 'thumb' },
        image.has_thumbnail
          ? h('img', {
              src: ctx.thumbnailUrl(image.id) ?? '',
              alt: `Thumbnail of ${image.name}`,
              width: 96,
              height: 96,
              dataset: { thumbnail: image.id },
            })
          : h('span', { class: 'muted' }, 'no preview'),
      ),
      h(
        'div',
        { class: 'details' },
        h('h3', { id: `image-${image.id}` }, image.name),
        h(
          'p',
          { class: 'row' },
          h(
            'span',
            { class: `badge ${image.upload_status}`, 'data-testid': 'image-state' },
            image.upload_status,
          ),
          h('span', {}, ctx.organizationName(image.organization_id)),
          h('span', {}, bytes(image.size)),
          h('span', {}, `shape ${shape(image.shape)}`),
          h('span', { class: 'muted' }, dateTime(image.created_at)),
        ),
        image.upload_error ? h('p', { class: 'error' }, image.upload_error) : null,
        image.predictions.length
          ? h(
              'ul',
              { class: 'predictions', 'aria-label': `Predictions of ${image.name}` },
              image.predictions.map((p) => predictionItem(p, image, ctx)),
            )
          : h('p', { class: 'muted' }, 'No predictions.'),
      ),
    ),
  );
}
