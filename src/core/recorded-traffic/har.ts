/**
 * A HAR 1.2 file as a browser's developer tools save it (`log.entries[].request`: method, url,
 * headers as name/value pairs, postData.text; `startedDateTime`), read into requests. HAR holds no
 * client address, so every request comes from `sourceIp`. HTTP/2 pseudo-headers (`:authority`…)
 * are not headers a load balancer shows a policy and are left out; entries that are not http(s)
 * (`data:`, `blob:`, `chrome-extension:`, WebSocket frames' `ws:`) are skipped with the reason. A
 * file that is not JSON is an error naming its line and column; one that is JSON but not HAR names
 * the member (`har: entries[3].request.url is not a URL`).
 */
import { jsonProblemOf } from '../json-body.ts';
import { isHttpUrl, isRecord, type RecordedRequest, type RecordedTraffic, RecordedTrafficError, type SkippedRequest, timeOf } from './recorded-request.ts';

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,64}$/;

/** parseHar reads a HAR file's text, or throws a RecordedTrafficError naming where it is wrong. */
export function parseHar(text: string, sourceIp: string): RecordedTraffic {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    const problem = jsonProblemOf(text);
    const where = problem === undefined ? '' : ` at line ${problem.line}, column ${problem.column}: ${problem.message}`;
    throw new RecordedTrafficError(`har: the file is not JSON${where === '' ? ` (${(error as Error).message})` : where}`);
  }
  const log = isRecord(parsed) ? parsed['log'] : undefined;
  if (!isRecord(log)) throw new RecordedTrafficError('har: no "log" object: not a HAR file');
  const entries = log['entries'];
  if (!Array.isArray(entries)) throw new RecordedTrafficError('har: log.entries is not a list');
  const requests: RecordedRequest[] = [];
  const skipped: SkippedRequest[] = [];
  for (const [i, entry] of entries.entries()) {
    const at = `entries[${i}]`;
    if (!isRecord(entry)) throw new RecordedTrafficError(`har: ${at} is not an object`);
    const request = entry['request'];
    if (!isRecord(request)) throw new RecordedTrafficError(`har: ${at}.request is missing`);
    const url = request['url'];
    if (typeof url !== 'string' || !/^[a-z][a-z0-9+.-]*:/i.test(url)) throw new RecordedTrafficError(`har: ${at}.request.url is not a URL`);
    if (!/^https?:/i.test(url)) {
      skipped.push({ at, reason: `not an http(s) request (${url.slice(0, url.indexOf(':') + 1)})` });
      continue;
    }
    if (!isHttpUrl(url)) throw new RecordedTrafficError(`har: ${at}.request.url is not a URL`);
    const method = request['method'];
    if (typeof method !== 'string' || !TOKEN.test(method)) throw new RecordedTrafficError(`har: ${at}.request.method is not an HTTP method`);
    const list = request['headers'] ?? [];
    if (!Array.isArray(list)) throw new RecordedTrafficError(`har: ${at}.request.headers is not a list`);
    const headers: Record<string, string[]> = {};
    for (const [j, header] of list.entries()) {
      const name = isRecord(header) ? header['name'] : undefined;
      const value = isRecord(header) ? header['value'] : undefined;
      if (typeof name !== 'string' || typeof value !== 'string')
        throw new RecordedTrafficError(`har: ${at}.request.headers[${j}] is not a {"name", "value"} pair of strings`);
      if (name.startsWith(':')) continue;
      if (!TOKEN.test(name)) throw new RecordedTrafficError(`har: ${at}.request.headers[${j}].name ${JSON.stringify(name)} is not a header name`);
      headers[name] = [...(headers[name] ?? []), value];
    }
    const started = entry['startedDateTime'];
    const time = timeOf(started);
    if (started !== undefined && time === undefined)
      throw new RecordedTrafficError(`har: ${at}.startedDateTime ${JSON.stringify(started)} is not an ISO 8601 time`);
    const postData = request['postData'];
    if (postData !== undefined && (!isRecord(postData) || (postData['text'] !== undefined && typeof postData['text'] !== 'string')))
      throw new RecordedTrafficError(`har: ${at}.request.postData.text is not a string`);
    const body = isRecord(postData) && typeof postData['text'] === 'string' && postData['text'] !== '' ? postData['text'] : undefined;
    requests.push({
      at,
      ...(time === undefined ? {} : { time }),
      request: { method, url, headers, sourceIp, ...(body === undefined ? {} : { body }) },
    });
  }
  return { requests, skipped };
}
