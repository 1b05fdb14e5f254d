// The baseline every HTTP benchmark compares against: a bare node:http server that does the
// least a JSON API can do — parse the JSON body, keep it in a Map, answer JSON. Plain
// JavaScript, run as its own process; prints `listening on http://HOST:PORT` like fogbank does.
import { createServer } from 'node:http';

const items = new Map();
const server = createServer((request, response) => {
  const chunks = [];
  request.on('data', (chunk) => chunks.push(chunk));
  request.on('end', () => {
    const url = request.url ?? '/';
    let status = 200;
    let body;
    if (request.method === 'POST') {
      try {
        const parsed = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
        items.set(parsed.name ?? url, parsed);
        body = { kind: 'bare#operation', status: 'DONE', targetLink: url };
      } catch {
        status = 400;
        body = { error: 'bad json' };
      }
    } else {
      const name = url.split('?')[0].split('/').pop() ?? '';
      body = items.get(name) ?? { ok: true };
    }
    const text = JSON.stringify(body);
    response.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
    response.end(text);
  });
});
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(`listening on http://127.0.0.1:${address.port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
