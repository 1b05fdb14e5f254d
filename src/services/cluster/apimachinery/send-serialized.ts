import type { FastifyReply, FastifyRequest } from 'fastify';
import { parseAccept } from './content-negotiation.ts';
import { escapeLikeGo } from './go-json.ts';
import { goParseBool } from './query-values.ts';

const asIs = (text: string): string => text;

/**
 * wantsPretty tells whether the apiserver would answer `request` with its pretty JSON serializer
 * (negotiation.NegotiateOutputMediaType): `pretty=1` on an accepted JSON media range, else the
 * first `pretty` query value read by strconv.ParseBool (`true`, `TRUE`, `1`, `t`, …; anything it
 * cannot read is false), else a User-Agent of a browser or a command-line HTTP tool (curl, Wget).
 */
export function wantsPretty(request: FastifyRequest): boolean {
  for (const range of parseAccept(request.headers.accept)) {
    if (range.params['pretty'] === '1' && ['application/json', 'application/*', '*/*'].includes(range.type)) return true;
  }
  const raw = (request.query as Record<string, string | string[] | undefined> | undefined)?.['pretty'];
  const pretty = Array.isArray(raw) ? raw[0] : raw;
  if (pretty !== undefined && pretty !== '') return goParseBool(pretty) === true;
  const agent = request.headers['user-agent'] ?? '';
  return agent.startsWith('curl') || agent.startsWith('Wget') || agent.startsWith('Mozilla/5.0');
}

/** indentLikeGo re-indents JSON text as Go's json.MarshalIndent(v, "", "  ") writes it (no trailing newline). */
export function indentLikeGo(text: string): string {
  return escapeLikeGo(JSON.stringify(JSON.parse(text) as unknown, null, 2));
}

/**
 * negotiatedJson is JSON text as the apiserver's JSON serializer writes it (runtime/serializer/json
 * doEncode): pretty, json.MarshalIndent's text; otherwise json.NewEncoder(w).Encode's, which ends
 * with a newline. Both escape as Go does.
 */
export function negotiatedJson(text: string, pretty: boolean): string {
  return pretty ? indentLikeGo(text) : `${escapeLikeGo(text)}\n`;
}

/**
 * sendSerialized is how the cluster family sends a body it has serialised itself: with exactly
 * the media type given (Fastify would append a charset to a JSON type sent as a string, and
 * quote the parameters of `…;as=Table`), and as a string, which Node writes in one piece with
 * the headers (a Buffer goes out as a second chunk). A negotiated answer (objects, lists, tables,
 * discovery, reviews) is written as the apiserver's serializer writes it (negotiatedJson): indented
 * when the request asks for pretty output (wantsPretty), else compact with a trailing newline;
 * `negotiated: false` is for documents the apiserver serves as they are (OpenAPI, /version).
 */
export function sendSerialized(reply: FastifyReply, contentType: string, text: string, options: { readonly negotiated?: boolean } = {}): FastifyReply {
  const body = options.negotiated !== false && contentType.startsWith('application/json') ? negotiatedJson(text, wantsPretty(reply.request)) : text;
  return reply.header('content-type', contentType).serializer(asIs).send(body);
}
