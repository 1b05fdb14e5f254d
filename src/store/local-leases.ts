import type { Leases } from './store.ts';

/**
 * LocalLeases is the lease table of a store only one process can open (memory, SQLite): every
 * holder lives in this process, which also dies with all of them, so leases need no expiry.
 * It still refuses a lease another holder of this process has, so one process running two
 * services (or two instances of one, in tests) keeps the same exclusivity as replicas do.
 */
export class LocalLeases implements Leases {
  readonly shared = false;
  readonly #holders = new Map<string, string>();

  async acquire(name: string, holder: string, _ttlMs: number): Promise<boolean> {
    const current = this.#holders.get(name);
    if (current !== undefined && current !== holder) return false;
    this.#holders.set(name, holder);
    return true;
  }

  async release(name: string, holder: string): Promise<void> {
    if (this.#holders.get(name) === holder) this.#holders.delete(name);
  }
}
