import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { describe, test } from 'node:test';
import { Headers } from '@zone-eu/mailsplit';
import { MailError } from '../errors.ts';
import { readRecipients } from './addresses.ts';
import { findBodyOffset, readHeaderBlock } from './header-block.ts';
import { parseMessage, parseMessageBytes, snippetOf } from './parse-message.ts';
import { readPartBodies } from './part-body.ts';

const message = [
  'From: a@example.com',
  'To: c@example.com',
  'Subject: =?UTF-8?B?aMOpbGxv?=',
  'Content-Type: multipart/mixed; boundary=X',
  '',
  '--X',
  'Content-Type: multipart/alternative; boundary=Y',
  '',
  '--Y',
  'Content-Type: text/plain; charset=iso-8859-1',
  'Content-Transfer-Encoding: quoted-printable',
  '',
  "Caf=E9 <ok> & it's",
  '--Y',
  'Content-Type: text/html',
  '',
  '<p>Caf&eacute;</p>',
  '--Y--',
  '--X',
  'Content-Type: application/pdf; name="a.pdf"',
  'Content-Disposition: attachment; filename="a.pdf"',
  'Content-Transfer-Encoding: base64',
  '',
  Buffer.from('PDFDATA').toString('base64'),
  '--X--',
  '',
].join('\r\n');

describe('parseMessage', () => {
  test('builds Gmail partIds, decoded sizes, inline and external bodies, decoded headers', async () => {
    const parsed = await parseMessage(Readable.from([Buffer.from(message)]));
    const { payload } = parsed;
    assert.equal(payload.partId, '');
    assert.equal(payload.mimeType, 'multipart/mixed');
    assert.deepEqual(payload.body, { size: 0 });
    assert.equal(payload.headers.find((h) => h.name === 'Subject')?.value, 'héllo');
    assert.deepEqual(
      payload.parts?.map((p) => p.partId),
      ['0', '1'],
    );
    assert.deepEqual(
      payload.parts?.[0]?.parts?.map((p) => [p.partId, p.mimeType, p.body]),
      [
        ['0.0', 'text/plain', { size: 16, inline: true }],
        ['0.1', 'text/html', { size: 18, inline: true }],
      ],
    );
    assert.deepEqual(payload.parts?.[1], {
      partId: '1',
      mimeType: 'application/pdf',
      filename: 'a.pdf',
      headers: [
        { name: 'Content-Type', value: 'application/pdf; name="a.pdf"' },
        { name: 'Content-Disposition', value: 'attachment; filename="a.pdf"' },
        { name: 'Content-Transfer-Encoding', value: 'base64' },
      ],
      body: { size: 7, external: true },
    });
    assert.equal(parsed.text, "Café <ok> & it's");
    assert.equal(parsed.hasAttachment, true);
  });

  test('readPartBodies decodes the parts asked for', async () => {
    const bodies = await readPartBodies(Readable.from([Buffer.from(message)]), new Set(['0.0', '1']));
    assert.equal(bodies.get('1')?.toString(), 'PDFDATA');
    assert.equal(bodies.get('0.0')?.toString('latin1'), "Caf\xe9 <ok> & it's");
    assert.equal(bodies.has('0.1'), false);
  });

  test('a single-part message is its own payload; no Content-Type means text/plain', async () => {
    const parsed = await parseMessage(Readable.from([Buffer.from('Subject: x\n\nhello\n')]));
    assert.deepEqual(
      [parsed.payload.partId, parsed.payload.mimeType, parsed.payload.body, parsed.payload.parts],
      ['', 'text/plain', { size: 6, inline: true }, undefined],
    );
  });

  test('snippetOf collapses whitespace, cuts at 200 characters and escapes HTML', () => {
    assert.equal(snippetOf('  a\r\n\r\n b <c> & "d" \'e\'  '), 'a b &lt;c&gt; &amp; &quot;d&quot; &#39;e&#39;');
    assert.equal(snippetOf(`${' '.repeat(1000)}${'w '.repeat(300)}`).length, 199);
  });
});

describe('headers and recipients', () => {
  test('the header block ends at the first blank line, CRLF or LF', () => {
    assert.equal(readHeaderBlock(Buffer.from('A: 1\r\nB: 2\r\n\r\nbody')).bodyOffset, 14);
    assert.equal(readHeaderBlock(Buffer.from('A: 1\nB: 2\n\nbody')).bodyOffset, 11);
    assert.equal(readHeaderBlock(Buffer.from('A: 1')).bodyOffset, 4);
  });

  test('a body without headers is not a message', () => {
    assert.throws(
      () => readHeaderBlock(Buffer.from('hello there')),
      (error: unknown) => error instanceof MailError && error.message === 'Invalid RFC822 message: it does not start with a header field.',
    );
  });

  test('To, Cc and Bcc are read (groups too) and each bad one is named', () => {
    const headers = new Headers(
      Buffer.from('To: "Bob, B" <BOB@example.com>, team: x@example.org, y@example.org;\r\nCc: c@example.com\r\nBcc: d@example.co.uk\r\n\r\n'),
    );
    assert.deepEqual(readRecipients(headers), { to: ['bob@example.com', 'x@example.org', 'y@example.org'], cc: ['c@example.com'], bcc: ['d@example.co.uk'] });
    for (const [line, message] of [
      ['To: human@f', 'Invalid To header'],
      ['Cc: not an address', 'Invalid Cc header'],
      ['Bcc: a@b..com', 'Invalid Bcc header'],
    ]) {
      assert.throws(
        () => readRecipients(new Headers(Buffer.from(`${line}\r\n\r\n`))),
        (error: unknown) => error instanceof MailError && error.message === message && error.httpStatus === 400,
      );
    }
  });
});

describe('parseMessageBytes', () => {
  // What the splitter yields is the reference: the fast path for one-part messages must agree with it exactly.
  const cases: Record<string, string> = {
    'plain text': 'From: a@example.com\r\nSubject: hi\r\n\r\nHello\r\nthere\r\n',
    'base64 text with a charset': `Content-Type: text/plain; charset=iso-8859-1\r\nContent-Transfer-Encoding: base64\r\n\r\n${Buffer.from('Caf\xe9 au lait', 'latin1').toString('base64')}\r\n`,
    'quoted-printable HTML': 'Content-Type: text/html; charset=utf-8\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n<p>Caf=C3=A9 =\r\nnoir</p>\r\n',
    'a one-part attachment':
      'Content-Type: application/pdf; name="a.pdf"\r\nContent-Disposition: attachment; filename="a.pdf"\r\nContent-Transfer-Encoding: base64\r\n\r\nUERGREFUQQ==\r\n',
    'folded and encoded headers': 'Subject: =?UTF-8?B?aMOpbGxv?=\r\n =?UTF-8?Q?_w=C3=B6rld?=\r\nTo: a@example.com,\r\n\tb@example.com\r\n\r\nbody',
    'an empty body': 'Subject: nothing\r\n\r\n',
    'bare LF line ends': 'Subject: lf\nContent-Type: text/plain\n\nline one\nline two\n',
    'an embedded message': 'Content-Type: message/rfc822\r\n\r\nSubject: inner\r\n\r\ninner body\r\n',
    'a multipart message (the splitter itself)': message,
  };
  for (const [name, raw] of Object.entries(cases)) {
    test(`parses ${name} as parseMessage does`, async () => {
      const bytes = Buffer.from(raw, 'latin1');
      const offset = findBodyOffset(bytes);
      assert.notEqual(offset, -1);
      assert.deepEqual(await parseMessageBytes(bytes.subarray(0, offset), bytes.subarray(offset)), await parseMessage(Readable.from([bytes])));
    });
  }
});
