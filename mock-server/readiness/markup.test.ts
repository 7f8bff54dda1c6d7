import { describe, expect, it } from 'vitest';
import { escapeMarkup } from './markup.js';

describe('escapeMarkup', () => {
  it('escapes markup, and leaves no character an XML document cannot hold (colours, binary output)', () => {
    expect(escapeMarkup(`<b a="1">'&'</b>`)).toBe('&lt;b a=&quot;1&quot;&gt;&#39;&amp;&#39;&lt;/b&gt;');
    expect(escapeMarkup('\x1b[31mred\x1b[0m\x00\x07\ufffe\tkept\r\n')).toBe(
      '\ufffd[31mred\ufffd[0m\ufffd\ufffd\ufffd\tkept\r\n',
    );
  });
});
