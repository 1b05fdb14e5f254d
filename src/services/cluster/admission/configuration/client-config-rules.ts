/**
 * A webhook's `clientConfig` (1.32 `k8s.io/apiserver/pkg/util/webhook/validation.go`): exactly
 * one of url or service; a url that Go's `net/url` parses, `https`, with a host and without user
 * information, fragment or query; a service with a name, a namespace, a valid port and a path of
 * DNS-subdomain segments.
 */
import { type FieldError, invalid, required } from '../../apimachinery/field-errors.ts';
import { isDns1123Subdomain } from '../../apimachinery/name-rules.ts';
import { recordOf, stringAt } from './go-literals.ts';

const FORM = '; desired format: https://host[/path]';

/** GoUrl is what Go's `url.Parse` yields that the rules read. */
interface GoUrl {
  readonly scheme: string;
  readonly host: string;
  readonly user: string | undefined;
  readonly fragment: string;
  readonly rawQuery: string;
}

function unescaped(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** parseGoUrl parses as Go's `url.Parse` does, or returns its error (`parse "<url>": missing protocol scheme`). */
function parseGoUrl(raw: string): GoUrl | { error: string } {
  const fail = (reason: string) => ({ error: `parse ${JSON.stringify(raw)}: ${reason}` });
  // biome-ignore lint/suspicious/noControlCharactersInRegex: Go refuses the ASCII control bytes
  if (/[\u0000-\u001f\u007f]/.test(raw)) return fail('net/url: invalid control character in URL');
  const hash = raw.indexOf('#');
  const fragment = hash < 0 ? '' : unescaped(raw.slice(hash + 1));
  let rest = hash < 0 ? raw : raw.slice(0, hash);
  let scheme = '';
  const schemeEnd = /^[a-zA-Z][a-zA-Z0-9+.-]*:/.exec(rest);
  if (rest.startsWith(':')) return fail('missing protocol scheme');
  if (schemeEnd !== null) {
    scheme = schemeEnd[0].slice(0, -1).toLowerCase();
    rest = rest.slice(schemeEnd[0].length);
  }
  let rawQuery = '';
  if (rest.endsWith('?') && rest.split('?').length === 2) rest = rest.slice(0, -1);
  else {
    const question = rest.indexOf('?');
    if (question >= 0) {
      rawQuery = rest.slice(question + 1);
      rest = rest.slice(0, question);
    }
  }
  if (!rest.startsWith('/')) {
    if (scheme !== '') return { scheme, host: '', user: undefined, fragment, rawQuery };
    const segment = rest.split('/')[0] ?? '';
    if (segment.includes(':')) return fail('first path segment in URL cannot contain colon');
  }
  let host = '';
  let user: string | undefined;
  if ((scheme !== '' || !rest.startsWith('///')) && rest.startsWith('//')) {
    const afterSlashes = rest.slice(2);
    const slash = afterSlashes.indexOf('/');
    const authority = slash < 0 ? afterSlashes : afterSlashes.slice(0, slash);
    const at = authority.lastIndexOf('@');
    if (at >= 0) user = authority.slice(0, at);
    host = at < 0 ? authority : authority.slice(at + 1);
    if (host.startsWith('[')) {
      const close = host.lastIndexOf(']');
      if (close < 0) return fail("missing ']' in host");
      const port = host.slice(close + 1);
      if (!/^(:[0-9]*)?$/.test(port)) return fail(`invalid port ${JSON.stringify(port)} after host`);
    } else {
      const colon = host.lastIndexOf(':');
      if (colon >= 0 && !/^:[0-9]*$/.test(host.slice(colon))) return fail(`invalid port ${JSON.stringify(host.slice(colon))} after host`);
    }
  }
  return { scheme, host, user, fragment, rawQuery };
}

/** validateWebhookUrl checks `clientConfig.url` (https forced, as for admission webhooks). */
export function validateWebhookUrl(url: string, path: string): FieldError[] {
  const parsed = parseGoUrl(url);
  if ('error' in parsed) return [required(path, `url must be a valid URL: ${parsed.error}${FORM}`)];
  const errors: FieldError[] = [];
  if (parsed.scheme !== 'https') errors.push(invalid(path, parsed.scheme, `'https' is the only allowed URL scheme${FORM}`));
  if (parsed.host === '') errors.push(invalid(path, parsed.host, `host must be provided${FORM}`));
  if (parsed.user !== undefined) errors.push(invalid(path, parsed.user, 'user information is not permitted in the URL'));
  if (parsed.fragment !== '') errors.push(invalid(path, parsed.fragment, 'fragments are not permitted in the URL'));
  if (parsed.rawQuery !== '') errors.push(invalid(path, parsed.rawQuery, 'query parameters are not permitted in the URL'));
  return errors;
}

/** validateWebhookService checks `clientConfig.service` (its port already defaulted to 443). */
export function validateWebhookService(service: Record<string, unknown>, path: string): FieldError[] {
  const errors: FieldError[] = [];
  if ((stringAt(service, 'name') ?? '') === '') errors.push(required(`${path}.name`, 'service name is required'));
  if ((stringAt(service, 'namespace') ?? '') === '') errors.push(required(`${path}.namespace`, 'service namespace is required'));
  const port = typeof service['port'] === 'number' ? service['port'] : 0;
  if (!(port >= 1 && port <= 65535)) errors.push(invalid(`${path}.port`, port, 'port is not valid: must be between 1 and 65535, inclusive'));
  const urlPath = stringAt(service, 'path');
  if (urlPath === undefined || urlPath === '/' || urlPath === '') return errors;
  if (urlPath === '//') return [...errors, invalid(`${path}.path`, urlPath, 'segment[0] may not be empty')];
  if (!urlPath.startsWith('/')) errors.push(invalid(`${path}.path`, urlPath, "must start with a '/'"));
  let toCheck = urlPath.slice(1);
  if (toCheck.endsWith('/')) toCheck = toCheck.slice(0, -1);
  for (const [index, step] of toCheck.split('/').entries()) {
    if (step === '') {
      errors.push(invalid(`${path}.path`, urlPath, `segment[${index}] may not be empty`));
      continue;
    }
    for (const problem of isDns1123Subdomain(step)) errors.push(invalid(`${path}.path`, urlPath, `segment[${index}]: ${problem}`));
  }
  return errors;
}

/** validateClientConfig checks a webhook's clientConfig: exactly one of url and service, then that one. */
export function validateClientConfig(value: unknown, path: string): FieldError[] {
  const config = recordOf(value) ?? {};
  const url = stringAt(config, 'url');
  const service = recordOf(config['service']);
  if ((url === undefined) === (service === undefined)) return [required(path, 'exactly one of url or service is required')];
  if (url !== undefined) return validateWebhookUrl(url, `${path}.url`);
  return validateWebhookService(service ?? {}, `${path}.service`);
}
