import type { Exchange, Finding } from './exchange.js';

/**
 * The file names a Content-Disposition offers: the quoted `filename` and, when there is one, the
 * RFC 5987 `filename*` decoded. A quoted form that had to replace characters (a name outside
 * printable ASCII) is left out: only the extended form then names the file.
 */
export function attachmentNames(disposition: string): Record<string, string> {
  const names: Record<string, string> = {};
  const quoted = /filename="((?:[^"\\]|\\.)*)"/.exec(disposition)?.[1]?.replace(/\\(.)/g, '$1');
  const extended = /filename\*=UTF-8''([^;\s]+)/i.exec(disposition)?.[1];
  if (extended !== undefined) names['filename*'] = percentDecoded(extended);
  if (
    quoted !== undefined &&
    (extended === undefined ||
      (/^[\x20-\x7e]*$/.test(names['filename*']) && !/["%\\]/.test(names['filename*'])))
  )
    names.filename = quoted;
  return names;
}

/** A malformed percent-encoding names no file: kept as sent, so it matches no name. */
function percentDecoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

const NAMED =
  'components.headers.ContentDisposition: attachment; filename="<image name>_<export>" (document): the name a client saves the file under, the RFC 5987 filename* where one is given (RFC 6266 4.3), is the image\'s name as sent';

/** The export each operation answers, as the document's paths name it. */
const EXPORT_FILES: Record<string, string> = {
  exportOverlayPng: 'overlay.png',
  exportMeasurementsCsv: 'measurements.csv',
  exportRoisGeojson: 'rois.geojson',
  exportRoisZip: 'rois.zip',
};

/**
 * Every name an export's Content-Disposition offers is `<image name>_<export>`, the name with or
 * without its .tif extension, as the image was sent: a name outside ASCII needs `filename*` to
 * arrive whole, and a target that offers only a quoted form with its letters replaced hands the
 * client a mangled file name. A quoted form sent as raw UTF-8 (which browsers read) is read so
 * too. A name with a path separator or a control character is left alone: a target may replace
 * those so that no client saves outside its folder (the advisory SEC clauses judge that). The
 * interface shows no file name ("not shown"), so the rule is the document's, filed under EXP-08
 * (assumed) alone.
 */
export function observeAttachmentName(x: Exchange, imageName: string | undefined, findings: Finding[]): void {
  const disposition = x.headers['content-disposition'];
  if (x.status !== 200 || !disposition || imageName === undefined) return;
  // eslint-disable-next-line no-control-regex -- a control character is what a target may replace
  if (/[/\\\x00-\x1f\x7f]/.test(imageName)) return;
  const exportName = EXPORT_FILES[x.operationId];
  if (!exportName) return;
  const stem = imageName.replace(/\.(ome\.)?tiff?$/i, '');
  const expected = [`${stem}_${exportName}`, `${imageName}_${exportName}`];
  for (const [form, offered] of Object.entries(attachmentNames(disposition))) {
    const asUtf8 = Buffer.from(offered, 'latin1').toString('utf8');
    if (expected.includes(offered) || (form === 'filename' && expected.includes(asUtf8))) continue;
    findings.push({
      sentence: NAMED,
      subject: `${x.operationId}: Content-Disposition ${form}`,
      predicted: JSON.stringify(expected[0]),
      received: JSON.stringify(offered),
      // the interface shows no file name: the document's rule, under its assumed clause alone
      clause: 'EXP-08',
    });
  }
}
