// The baseline of bench/guard.ts: the least a reverse proxy does — a node:http server that
// streams each request to the upstream given as its argument over a keep-alive agent and streams
// the answer back. Plain JavaScript, its own process; prints `listening on http://HOST:PORT`.
import { Agent, createServer, request } from 'node:http';

const upstream = new URL(process.argv[2] ?? 'http://127.0.0.1:3000');
const agent = new Agent({ keepAlive: true, maxSockets: 512 });
const server = createServer((incoming, outgoing) => {
  const headers = { ...incoming.headers };
  delete headers.connection;
  delete headers['keep-alive'];
  const forwarded = request({ agent, host: upstream.hostname, port: upstream.port, method: incoming.method, path: incoming.url, headers }, (answer) => {
    outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
    answer.pipe(outgoing);
  });
  forwarded.on('error', () => {
    outgoing.statusCode = 502;
    outgoing.end();
  });
  incoming.pipe(forwarded);
});
server.keepAliveTimeout = 65_000;
server.listen(0, '127.0.0.1', () => {
  console.log(`listening on http://127.0.0.1:${server.address().port}`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
