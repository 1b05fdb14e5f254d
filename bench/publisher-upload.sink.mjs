// The baseline of bench/publisher-upload.ts: a bare node:http server that takes a resumable
// upload as Google's protocol sends it — a POST that starts a session (answered with its
// Location), then PUTs of chunks with Content-Range — and appends every chunk's body to one file
// in a directory given as the first argument, answering 308 until the last byte and 200 then.
// Plain JavaScript, its own process; prints `listening on http://HOST:PORT` like fogbank does.
import { createWriteStream } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';

const dir = process.argv[2];
let sessions = 0;
const server = createServer((request, response) => {
  if (request.method === 'POST') {
    request.resume();
    request.once('end', () => {
      const id = ++sessions;
      response.writeHead(200, { location: `http://${request.headers.host}/session/${id}`, 'content-length': '0' }).end();
    });
    return;
  }
  const id = /^\/session\/(\d+)$/.exec(request.url ?? '')?.[1];
  const range = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(String(request.headers['content-range']));
  if (request.method !== 'PUT' || id === undefined || range === null) {
    request.resume();
    response.writeHead(400, { 'content-length': '0' }).end();
    return;
  }
  const last = Number(range[2]) + 1 === Number(range[3]);
  pipeline(request, createWriteStream(join(dir, `upload-${id}`), { flags: 'a' })).then(
    () => response.writeHead(last ? 200 : 308, { 'content-type': 'application/json', 'content-length': '2' }).end('{}'),
    () => response.writeHead(500, { 'content-length': '0' }).end(),
  );
});
server.listen(0, '127.0.0.1', () => process.stdout.write(`listening on http://127.0.0.1:${server.address().port}\n`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
