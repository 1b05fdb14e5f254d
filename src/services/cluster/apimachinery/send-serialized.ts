import type { FastifyReply } from 'fastify';

const asIs = (text: string): string => text;

/**
 * sendSerialized is how the cluster family sends a body it has serialised itself: with exactly
 * the media type given (Fastify would append a charset to a JSON type sent as a string, and
 * quote the parameters of `…;as=Table`), and as a string, which Node writes in one piece with
 * the headers (a Buffer goes out as a second chunk).
 */
export function sendSerialized(reply: FastifyReply, contentType: string, text: string): FastifyReply {
  return reply.header('content-type', contentType).serializer(asIs).send(text);
}
