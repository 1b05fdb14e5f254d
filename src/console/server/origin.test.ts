import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FastifyRequest } from 'fastify';
import { ConsoleError } from './errors.ts';
import { checkOrigin, ownOrigin } from './origin.ts';

/** requestOn is a request as Fastify hands it: headers, and the socket it came on (a TLSSocket is `encrypted`). */
function requestOn(tls: boolean, headers: Record<string, string>): FastifyRequest {
  return { headers, raw: { socket: tls ? { encrypted: true } : {} } } as unknown as FastifyRequest;
}

describe("the console's own origin", () => {
  it('is the connection’s scheme with the Host addressed, written as a browser writes an Origin', () => {
    assert.equal(ownOrigin(requestOn(false, { host: '127.0.0.1:8780' })), 'http://127.0.0.1:8780');
    assert.equal(ownOrigin(requestOn(true, { host: '127.0.0.1:8780' })), 'https://127.0.0.1:8780');
    assert.equal(ownOrigin(requestOn(true, { host: 'Fogbank.Example:8780' })), 'https://fogbank.example:8780');
    assert.equal(ownOrigin(requestOn(true, { host: '[::1]:8780' })), 'https://[::1]:8780');
    assert.equal(ownOrigin(requestOn(true, { host: 'localhost:443' })), 'https://localhost', 'a default port is left out');
    assert.equal(ownOrigin(requestOn(false, { host: 'localhost:80' })), 'http://localhost');
    for (const host of ['', 'a b', 'evil.test/x', 'user@host', 'h:99999']) assert.equal(ownOrigin(requestOn(true, { host })), undefined, host);
    assert.equal(ownOrigin(requestOn(true, {})), undefined);
  });

  it('accepts exactly that Origin; another site, the other scheme, none at all are refused', () => {
    checkOrigin(requestOn(true, { host: 'localhost:8780', origin: 'https://localhost:8780' }));
    checkOrigin(requestOn(false, { host: 'localhost:8780', origin: 'http://localhost:8780' }));
    checkOrigin(requestOn(true, { host: 'node-1.example:8780', origin: 'https://node-1.example:8780' }));
    const refused = (tls: boolean, headers: Record<string, string>, message: string) =>
      assert.throws(
        () => checkOrigin(requestOn(tls, headers)),
        (error: unknown) => error instanceof ConsoleError && error.httpStatus === 403 && error.message === message,
      );
    refused(
      true,
      { host: 'localhost:8780', origin: 'http://localhost:8780' },
      `A console change must come from the console's own page (Origin https://localhost:8780), not "http://localhost:8780".`,
    );
    refused(
      false,
      { host: 'localhost:8780', origin: 'https://localhost:8780' },
      `A console change must come from the console's own page (Origin http://localhost:8780), not "https://localhost:8780".`,
    );
    refused(
      true,
      { host: 'localhost:8780', origin: 'https://evil.test' },
      `A console change must come from the console's own page (Origin https://localhost:8780), not "https://evil.test".`,
    );
    refused(
      true,
      { host: 'localhost:8780' },
      `A console change must come from the console's own page (Origin https://localhost:8780), not a request without an Origin.`,
    );
    refused(
      true,
      { host: 'localhost:8780', origin: 'null' },
      `A console change must come from the console's own page (Origin https://localhost:8780), not "null".`,
    );
  });
});
