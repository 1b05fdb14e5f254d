/**
 * The conversion webhook's `caBundle` as client-go's transport reads it (`transport.TLSConfigFor`
 * → `rootCertPool`): PEM data holding at least one parseable CERTIFICATE block, or the error
 * client-go gives (`createErrorParsingCAData`).
 */
import { X509Certificate } from 'node:crypto';
import { GoLiteral } from '../../apimachinery/field-errors.ts';

interface PemBlock {
  readonly type: string;
  readonly hasHeaders: boolean;
  readonly der: Buffer | undefined;
}

/** decodePem finds the next PEM block as Go's pem.Decode does (leading bytes skipped), with what follows it. */
function decodePem(text: string): { block: PemBlock; rest: string } | undefined {
  const match = /-----BEGIN ([^\n-]*)-----\r?\n([\s\S]*?)-----END \1-----[ \t]*\r?\n?/.exec(text);
  if (match === null) return undefined;
  const body = match[2] ?? '';
  const blank = /\r?\n\r?\n/.exec(body);
  const firstLine = body.split(/\r?\n/, 1)[0] ?? '';
  const hasHeaders = firstLine.includes(':') && blank !== null;
  const base64 = (hasHeaders && blank !== null ? body.slice(blank.index + blank[0].length) : body).replace(/\s+/g, '');
  const der = /^[A-Za-z0-9+/]*={0,2}$/.test(base64) && base64.length % 4 === 0 ? Buffer.from(base64, 'base64') : undefined;
  return { block: { type: match[1] ?? '', hasHeaders, der }, rest: text.slice((match.index ?? 0) + match[0].length) };
}

function parses(der: Buffer): boolean {
  try {
    new X509Certificate(der);
    return true;
  } catch {
    return false;
  }
}

/** caBundleProblem is why client-go would refuse the bundle (`unable to load root certificates: …`), or undefined when it is usable or empty. */
export function caBundleProblem(caBundle: string | undefined): string | undefined {
  if (caBundle === undefined || caBundle === '') return undefined;
  const text = Buffer.from(caBundle, 'base64').toString('latin1');
  // AppendCertsFromPEM: usable when any CERTIFICATE block without headers parses.
  let scan = text;
  for (let decoded = decodePem(scan); decoded !== undefined; decoded = decodePem(scan)) {
    const { block } = decoded;
    if (block.type === 'CERTIFICATE' && !block.hasHeaders && block.der !== undefined && parses(block.der)) return undefined;
    scan = decoded.rest;
  }
  let rest = text;
  while (rest.length > 0) {
    const decoded = decodePem(rest);
    if (decoded === undefined) return 'unable to load root certificates: unable to parse bytes as PEM block';
    rest = decoded.rest;
    const { block } = decoded;
    if (block.type !== 'CERTIFICATE' || block.hasHeaders) continue;
    if (block.der === undefined || !parses(block.der)) return 'unable to load root certificates: failed to parse certificate: x509: malformed certificate';
  }
  return 'unable to load root certificates: no valid certificate authority data seen';
}

/** caBundleLiteral prints the bundle's bytes as Go's `%#v` prints a []byte. */
export function caBundleLiteral(caBundle: string): GoLiteral {
  const bytes = [...Buffer.from(caBundle, 'base64')];
  return new GoLiteral(`[]byte{${bytes.map((byte) => `0x${byte.toString(16)}`).join(', ')}}`);
}
