/**
 * Which representation a client asked for in `Accept`: the object itself, a server-side
 * `Table` (what kubectl get asks for), or `PartialObjectMetadata` (metadata-only clients).
 */
import { notAcceptable } from './status.ts';

/** OutputForm is what a response carries. */
export type OutputForm =
  | { readonly kind: 'object' }
  | { readonly kind: 'table'; readonly version: string }
  | { readonly kind: 'partial'; readonly version: string };

/** JSON_MEDIA_TYPES are the media types a cluster endpoint can produce (for 406 texts). */
export const PRODUCED_MEDIA_TYPES: readonly string[] = ['application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf'];

interface MediaRange {
  readonly type: string;
  readonly params: Readonly<Record<string, string>>;
}

/** parseAccept splits an Accept header into media ranges, in the client's order. */
export function parseAccept(header: string | undefined): MediaRange[] {
  if (header === undefined || header.trim() === '') return [{ type: '*/*', params: {} }];
  return header.split(',').map((part) => {
    const [type, ...rest] = part.split(';');
    const params: Record<string, string> = {};
    for (const param of rest) {
      const [key, value] = param.split('=');
      if (key !== undefined && value !== undefined) params[key.trim()] = value.trim();
    }
    return { type: (type ?? '').trim().toLowerCase(), params };
  });
}

function isJson(type: string): boolean {
  return type === 'application/json' || type === '*/*' || type === 'application/*';
}

/** negotiateOutput picks the first acceptable form; nothing acceptable is the real 406. */
export function negotiateOutput(header: string | undefined): OutputForm {
  for (const range of parseAccept(header)) {
    if (!isJson(range.type)) continue;
    const as = range.params['as'];
    if (as === undefined) return { kind: 'object' };
    if (range.params['g'] !== 'meta.k8s.io') continue;
    const version = range.params['v'] ?? '';
    if (version !== 'v1' && version !== 'v1beta1') continue;
    if (as === 'Table') return { kind: 'table', version };
    if (as === 'PartialObjectMetadata' || as === 'PartialObjectMetadataList') return { kind: 'partial', version };
  }
  throw notAcceptable(PRODUCED_MEDIA_TYPES);
}

/** contentTypeOf is the Content-Type of a response in the given form. */
export function contentTypeOf(form: OutputForm, list: boolean): string {
  switch (form.kind) {
    case 'object':
      return 'application/json';
    case 'table':
      return `application/json;as=Table;v=${form.version};g=meta.k8s.io`;
    case 'partial':
      return `application/json;as=${list ? 'PartialObjectMetadataList' : 'PartialObjectMetadata'};v=${form.version};g=meta.k8s.io`;
  }
}
