/**
 * A YAML decoding thread (started by yaml-worker-pool.ts): it parses one body at a time with the
 * same bounded parser the event loop uses for short bodies (yaml-body.ts), and answers each with
 * the value or the failure (yaml-worker-protocol.ts). The pool ends it when a body takes too long.
 */
import { parentPort } from 'node:worker_threads';
import { loadYamlBodyParser } from './yaml-body.ts';
import { failureOf, replyOf, type YamlWorkerReply, type YamlWorkerRequest } from './yaml-worker-protocol.ts';

const port = parentPort;
if (port === null) throw new Error('yaml-worker runs as a worker thread, started by yaml-worker-pool');
// Requests sent while the library loads wait in the port until the listener is there. A library
// that does not load rejects unhandled: the thread ends with an error, which the pool reports.
void loadYamlBodyParser().then((parse) =>
  port.on('message', ({ id, text }: YamlWorkerRequest) => {
    let reply: YamlWorkerReply;
    try {
      reply = replyOf(id, parse(text));
    } catch (error) {
      reply = { id, failure: failureOf(error) };
    }
    port.postMessage(reply);
  }),
);
