/**
 * RevisionReads shares reads of the database's current revision between concurrent callers, as
 * the apiserver shares etcd progress requests between consistent reads: at most one read is in
 * flight; callers that arrive while it is wait for the next one, which starts when it ends. A
 * caller only ever joins a read sent after it arrived, so the revision it gets includes every
 * commit that finished before its call: consistent, at one query per round trip time whatever
 * the number of readers.
 */
export class RevisionReads {
  readonly #query: () => Promise<number>;
  #running: Promise<number> | undefined;
  #queued: Promise<number> | undefined;

  constructor(query: () => Promise<number>) {
    this.#query = query;
  }

  /** read returns a revision at least as new as every commit that finished before the call. */
  read(): Promise<number> {
    const running = this.#running;
    if (running === undefined) return this.#start();
    this.#queued ??= running.then(ignore, ignore).then(() => {
      this.#queued = undefined;
      return this.#start();
    });
    return this.#queued;
  }

  #start(): Promise<number> {
    const read: Promise<number> = this.#query().finally(() => {
      if (this.#running === read) this.#running = undefined;
    });
    this.#running = read;
    return read;
  }
}

function ignore(): void {}
