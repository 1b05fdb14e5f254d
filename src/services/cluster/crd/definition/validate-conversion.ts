/**
 * Checks of `spec.conversion` (apiextensions validation `validateCustomResourceConversion` and
 * apiserver `util/webhook` for the webhook's URL and service). Paths are the internal type's:
 * v1's `conversion.webhook.clientConfig` is `spec.conversion.webhookClientConfig` there.
 */
import { type FieldError, forbidden, invalid, notSupported, required } from '../../apimachinery/field-errors.ts';
import { isDns1123Subdomain } from '../../apimachinery/name-rules.ts';
import type { CustomResourceDefinitionSpec } from '../types.ts';
import { caBundleLiteral, caBundleProblem } from './ca-bundle.ts';
import { isDns1035Label } from '../../apimachinery/name-rules.ts';

/** ACCEPTED_REVIEW_VERSIONS are the ConversionReview versions this apiserver speaks. */
const ACCEPTED_REVIEW_VERSIONS = ['v1', 'v1beta1'];

interface ClientConfig {
  url?: unknown;
  service?: { namespace?: unknown; name?: unknown; path?: unknown; port?: unknown } | null;
  caBundle?: unknown;
}

/** validateConversion checks the strategy and, for Webhook, the client config and review versions. */
export function validateConversion(conversion: CustomResourceDefinitionSpec['conversion'], path: string, allowInvalidCABundle = true): FieldError[] {
  if (conversion === undefined || conversion === null) return [];
  const errors: FieldError[] = [];
  const strategy = typeof conversion.strategy === 'string' ? conversion.strategy : '';
  if (strategy === '') errors.push(required(`${path}.strategy`));
  else if (strategy !== 'None' && strategy !== 'Webhook') errors.push(notSupported(`${path}.strategy`, strategy, ['None', 'Webhook']));
  const clientConfig = (conversion.webhook?.clientConfig ?? undefined) as ClientConfig | undefined;
  const reviewVersions = conversion.webhook?.conversionReviewVersions;
  if (strategy === 'Webhook') {
    if (clientConfig === undefined || clientConfig === null) errors.push(required(`${path}.webhookClientConfig`, 'required when strategy is set to Webhook'));
    else {
      const hasUrl = typeof clientConfig.url === 'string';
      const hasService = clientConfig.service !== undefined && clientConfig.service !== null;
      if (hasUrl === hasService) errors.push(required(`${path}.webhookClientConfig`, 'exactly one of url or service is required'));
      else if (hasUrl) errors.push(...validateWebhookUrl(`${path}.webhookClientConfig.url`, clientConfig.url as string));
      else errors.push(...validateWebhookService(`${path}.webhookClientConfig.service`, clientConfig.service!));
      const caBundle = typeof clientConfig.caBundle === 'string' ? clientConfig.caBundle : '';
      const problem = caBundleProblem(caBundle);
      if (!allowInvalidCABundle && problem !== undefined) errors.push(invalid(`${path}.webhookClientConfig.caBundle`, caBundleLiteral(caBundle), problem));
    }
    errors.push(...validateReviewVersions(reviewVersions, `${path}.conversionReviewVersions`));
  } else {
    if (clientConfig !== undefined && clientConfig !== null)
      errors.push(forbidden(`${path}.webhookClientConfig`, 'should not be set when strategy is not set to Webhook'));
    if (Array.isArray(reviewVersions) && reviewVersions.length > 0) {
      errors.push(forbidden(`${path}.conversionReviewVersions`, 'should not be set when strategy is not set to Webhook'));
    }
  }
  return errors;
}

function validateReviewVersions(versions: unknown, path: string): FieldError[] {
  if (!Array.isArray(versions) || versions.length === 0) return [required(path)];
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  let accepted = false;
  for (const [index, item] of versions.entries()) {
    const version = String(item);
    if (seen.has(version)) {
      errors.push(invalid(`${path}[${index}]`, version, 'duplicate version'));
      continue;
    }
    seen.add(version);
    for (const problem of isDns1035Label(version)) errors.push(invalid(`${path}[${index}]`, version, problem));
    if (ACCEPTED_REVIEW_VERSIONS.includes(version)) accepted = true;
  }
  if (!accepted) errors.push(invalid(path, versions.map(String), `must include at least one of ${ACCEPTED_REVIEW_VERSIONS.join(', ')}`));
  return errors;
}

/** validateWebhookUrl is ValidateWebhookURL with https forced. */
function validateWebhookUrl(path: string, text: string): FieldError[] {
  const form = '; desired format: https://host[/path]';
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(text)?.[1] ?? '';
    const errors = [invalid(path, scheme, `'https' is the only allowed URL scheme${form}`)];
    errors.push(invalid(path, '', `host must be specified${form}`));
    return scheme === 'https' ? errors.slice(1) : errors;
  }
  const errors: FieldError[] = [];
  const scheme = url.protocol.replace(/:$/, '');
  if (scheme !== 'https') errors.push(invalid(path, scheme, `'https' is the only allowed URL scheme${form}`));
  if (url.host === '') errors.push(invalid(path, url.host, `host must be specified${form}`));
  if (url.username !== '' || url.password !== '') {
    errors.push(invalid(path, url.password === '' ? url.username : `${url.username}:${url.password}`, 'user information is not permitted in the URL'));
  }
  if (url.hash.length > 1) errors.push(invalid(path, decodeURIComponent(url.hash.slice(1)), 'fragments are not permitted in the URL'));
  if (url.search.length > 1) errors.push(invalid(path, url.search.slice(1), 'query parameters are not permitted in the URL'));
  return errors;
}

/** validateWebhookService is ValidateWebhookService (the port defaults to 443). */
function validateWebhookService(path: string, service: NonNullable<ClientConfig['service']>): FieldError[] {
  const errors: FieldError[] = [];
  if (typeof service.name !== 'string' || service.name === '') errors.push(required(`${path}.name`, 'service name is required'));
  if (typeof service.namespace !== 'string' || service.namespace === '') errors.push(required(`${path}.namespace`, 'service namespace is required'));
  const port = typeof service.port === 'number' ? service.port : 443;
  if (!Number.isInteger(port) || port < 1 || port > 65535)
    errors.push(invalid(`${path}.port`, port, 'port is not valid: must be between 1 and 65535, inclusive'));
  if (typeof service.path !== 'string') return errors;
  const urlPath = service.path;
  if (urlPath === '/' || urlPath === '') return errors;
  if (urlPath === '//') return [...errors, invalid(`${path}.path`, urlPath, 'segment[0] may not be empty')];
  if (!urlPath.startsWith('/')) errors.push(invalid(`${path}.path`, urlPath, "must start with a '/'"));
  let rest = urlPath.slice(1);
  if (rest.endsWith('/')) rest = rest.slice(0, -1);
  for (const [index, step] of rest.split('/').entries()) {
    if (step === '') {
      errors.push(invalid(`${path}.path`, urlPath, `segment[${index}] may not be empty`));
      continue;
    }
    for (const problem of isDns1123Subdomain(step)) errors.push(invalid(`${path}.path`, urlPath, `segment[${index}]: ${problem}`));
  }
  return errors;
}
