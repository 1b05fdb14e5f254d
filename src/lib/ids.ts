import { createHash, randomBytes } from 'node:crypto';

/** IdSource produces every identifier and random value a service needs, so tests get stable ones. */
export interface IdSource {
  /** bytes returns `n` random bytes, in a Buffer the caller owns (and may change). */
  bytes(n: number): Buffer;
}

/**
 * cryptoIds draws from the operating system's random generator, a pool at a time: ids are asked
 * for a few bytes at once on every write, and one getrandom call per id cost a fifth of the CPU
 * of an insert under load (measured with --cpu-prof on bench/compute-insert-get.ts).
 */
export const cryptoIds: IdSource = pooledRandom(16 * 1024);

function pooledRandom(poolSize: number): IdSource {
  let pool = Buffer.alloc(0);
  let offset = 0;
  return {
    bytes(n: number): Buffer {
      if (n > poolSize) return randomBytes(n);
      if (offset + n > pool.length) {
        pool = randomBytes(poolSize);
        offset = 0;
      }
      const out = Buffer.from(pool.subarray(offset, offset + n));
      offset += n;
      return out;
    },
  };
}

/** seededIds is a deterministic source (SHA-256 in counter mode) for tests. */
export function seededIds(seed: string): IdSource {
  let counter = 0;
  let pool = Buffer.alloc(0);
  return {
    bytes(n: number): Buffer {
      while (pool.length < n) {
        const block = createHash('sha256').update(`${seed}:${counter++}`).digest();
        pool = Buffer.concat([pool, block]);
      }
      const out = pool.subarray(0, n);
      pool = pool.subarray(n);
      return Buffer.from(out);
    },
  };
}

/** uint64Id renders 8 random bytes as an unsigned decimal, the way compute resource ids look. */
export function uint64Id(ids: IdSource): string {
  const value = ids.bytes(8).readBigUInt64BE(0);
  // Real ids are large; avoid the rare tiny value so they always look like ids.
  return (value | (1n << 62n)).toString();
}

/** hexId renders `bytes` random bytes as lowercase hex. */
export function hexId(ids: IdSource, bytes: number): string {
  return ids.bytes(bytes).toString('hex');
}
