/**
 * Text made safe inside HTML elements and attributes, and inside XML (JUnit) alike. A control
 * character (a test runner's colours, binary output) is in no XML document, even escaped: one
 * made the whole junit.xml unreadable to a CI, so each shows as U+FFFD.
 */
export function escapeMarkup(text: string): string {
  return (
    text
      // eslint-disable-next-line no-control-regex -- the control characters are what it removes
      .replaceAll(/[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]/g, '\ufffd')
      .replaceAll('&', '&amp;')
      .replaceAll('<', '&lt;')
      .replaceAll('>', '&gt;')
      .replaceAll('"', '&quot;')
      .replaceAll("'", '&#39;')
  );
}

/** A self-contained HTML page: the reports open from a CI artefact with nothing beside them. */
export function htmlPage(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeMarkup(title)}</title>
<style>
body { font: 14px/1.45 system-ui, sans-serif; margin: 2rem; color: #1b1f23; }
table { border-collapse: collapse; margin: 1rem 0; } td, th { border: 1px solid #d0d7de; padding: .3rem .6rem; text-align: left; vertical-align: top; }
.survived, .met { color: #1a7f37; } .failed { color: #cf222e; font-weight: 600; } .never-reached, .not-met { color: #9a6700; }
pre { background: #f6f8fa; padding: .5rem; margin: .3rem 0; white-space: pre-wrap; max-width: 70rem; }
</style></head><body>
<h1>${escapeMarkup(title)}</h1>
${body}
</body></html>
`;
}

/** A Markdown table cell: pipes and line breaks would end the cell. */
export function mdCell(text: string): string {
  return text.replaceAll('|', '\\|').replaceAll(/\r?\n/g, ' ');
}

/** A Markdown code block no line of the client's output closes: its fence outruns their backticks. */
export function mdBlock(lines: readonly string[]): string[] {
  const longest = Math.max(2, ...lines.flatMap((line) => (line.match(/`+/g) ?? []).map((run) => run.length)));
  const fence = '`'.repeat(longest + 1);
  return [fence, ...lines, fence];
}
