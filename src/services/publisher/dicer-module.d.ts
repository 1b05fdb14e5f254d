// Types for the streaming multipart parser that @fastify/busboy ships (its own dicer.d.ts is not
// reachable under the file's exact name with NodeNext resolution). Only what receive-upload uses.
declare module '@fastify/busboy/deps/dicer/lib/Dicer.js' {
  import type { Readable, Writable } from 'node:stream';

  interface DicerConfig {
    readonly boundary: string;
    readonly maxHeaderPairs?: number;
  }

  class Dicer extends Writable {
    constructor(config: DicerConfig);
    on(event: 'part', listener: (part: Readable) => void): this;
    on(event: 'error', listener: (error: Error) => void): this;
    on(event: 'finish', listener: () => void): this;
  }

  export default Dicer;
}
