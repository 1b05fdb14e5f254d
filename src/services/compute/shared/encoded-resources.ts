import type { FastifyReply } from 'fastify';
import type { Links } from './links.ts';

/**
 * The JSON text of a stored resource as a GET answers it, made once per stored revision and API
 * root (serialize once, as the apiserver's caching object does for Kubernetes objects): a GET by
 * name of an unchanged resource then costs no rendering, no RFC 3339 formatting and no
 * JSON.stringify. A store hands out the same value object until the resource changes and never
 * changes one in place, so the value is the key; a new revision is a new value and misses, and a
 * value the store dropped is dropped here with it (a WeakMap: nothing to bound or evict).
 */
export class EncodedResources<T extends object> {
  readonly #byValue = new WeakMap<T, { readonly base: string; readonly text: string }>();

  constructor(readonly render: (value: T, links: Links) => unknown) {}

  /** text is the JSON of `value` rendered for `links`, kept for the next read of the same value on the same API root. */
  text(value: T, links: Links): string {
    const kept = this.#byValue.get(value);
    if (kept !== undefined && kept.base === links.base) return kept.text;
    const text = JSON.stringify(this.render(value, links));
    this.#byValue.set(value, { base: links.base, text });
    return text;
  }

  /** send answers `reply` with the JSON of `value`, as Fastify would serialise the rendered object. */
  send(reply: FastifyReply, value: T, links: Links): FastifyReply {
    return reply.type(JSON_TYPE).send(this.text(value, links));
  }
}

/** JSON_TYPE is the Content-Type Fastify gives a serialised object, kept for answers sent as text. */
const JSON_TYPE = 'application/json; charset=utf-8';
