import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fastifyLogger, renderTextLine } from './log.ts';

describe('text log lines', () => {
  it('a request record is METHOD PATH STATUS TIMEms', () => {
    const record = {
      level: 30,
      time: 1,
      pid: 1,
      hostname: 'h',
      reqId: 'req-1',
      method: 'POST',
      url: '/compute/v1/projects/p/global/instanceTemplates',
      statusCode: 200,
      responseTime: 3.217,
      msg: 'request completed',
    };
    assert.equal(renderTextLine(JSON.stringify(record)), 'POST /compute/v1/projects/p/global/instanceTemplates 200 3.2ms\n');
  });

  it('other records are `level: message`, with the error stack', () => {
    assert.equal(renderTextLine(JSON.stringify({ level: 50, msg: 'boom', err: { stack: 'Error: boom\n    at x' } })), 'error: boom\nError: boom\n    at x\n');
    assert.equal(renderTextLine(JSON.stringify({ level: 40, msg: 'careful' })), 'warn: careful\n');
  });

  it("Fastify's listening record is left to the banner", () => {
    assert.equal(renderTextLine(JSON.stringify({ level: 30, msg: 'Server listening at http://127.0.0.1:1' })), '');
  });
});

describe('fastifyLogger', () => {
  it('is off when silent, renders text, passes JSON through', () => {
    assert.equal(fastifyLogger('silent', 'text'), false);
    const out: string[] = [];
    const text = fastifyLogger('info', 'text', (line) => out.push(line));
    const json = fastifyLogger('warn', 'json', (line) => out.push(line));
    assert.ok(text !== false && json !== false);
    assert.equal(text.level, 'info');
    const line = `${JSON.stringify({ level: 40, msg: 'm' })}\n`;
    text.stream!.write(line);
    json.stream!.write(line);
    assert.deepEqual(out, ['warn: m\n', line]);
  });
});
