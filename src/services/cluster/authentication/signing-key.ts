/**
 * The key that signs ServiceAccount tokens (the apiserver's `--service-account-signing-key-file`),
 * an RSA 2048 key made on first need and then kept like the admin token: configuration, not
 * state. Where it is kept follows the store:
 *
 * - SQLite (a data directory): the file `<data dir>/service-account.key` (PKCS #8 PEM, mode 0600),
 *   beside `admin-token`; a snapshot restore or a reset leaves it alone.
 * - PostgreSQL: a record of the store (`cluster/service-account-signing-key`), so every replica
 *   sharing the database signs and verifies with one key; the first replica to need it makes it
 *   (create-only write; a replica that loses the race reads the winner's). Each replica holding
 *   the key follows the record on the change feed: after a reset (no record) it writes its key
 *   back, so the key outlives resets; after a restore of a snapshot that carries a key, every
 *   replica takes that one.
 * - memory (`--ephemeral`, `--store memory`, tests): the process's memory.
 *
 * The key id is the apiserver's: base64url (no padding) of the SHA-256 of the public key's PKIX DER.
 */
import { createHash, createPrivateKey, createPublicKey, generateKeyPair, type KeyObject } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConflictError, type Store, type Subscription } from '../../../store/index.ts';

/** SigningKey is the token signing key with what verifiers and the JWKS need. */
export interface SigningKey {
  readonly privateKey: KeyObject;
  readonly publicKey: KeyObject;
  /** The key id (`kid`) of tokens signed with it. */
  readonly kid: string;
  /** The private key as PKCS #8 PEM, as kept. */
  readonly pem: string;
}

/** SIGNING_KEY_FILE is the key's file name in the data directory. */
export const SIGNING_KEY_FILE = 'service-account.key';

/** SIGNING_KEY_STORE_KIND is the record kind holding the key on a shared (PostgreSQL) store. */
export const SIGNING_KEY_STORE_KIND = 'cluster/service-account-signing-key';

const RECORD_KEY = 'current';

/** signingKeyFromPem reads a PKCS #8 (or PKCS #1) RSA private key in PEM and derives the public key and key id. */
export function signingKeyFromPem(pem: string): SigningKey {
  const privateKey = createPrivateKey(pem);
  const publicKey = createPublicKey(privateKey);
  const der = publicKey.export({ type: 'spki', format: 'der' });
  return { privateKey, publicKey, kid: createHash('sha256').update(der).digest('base64url'), pem };
}

/** generateSigningKeyPem makes a new RSA 2048 key (off the event loop) as PKCS #8 PEM. */
export function generateSigningKeyPem(): Promise<string> {
  return new Promise((resolve, reject) => {
    generateKeyPair(
      'rsa',
      { modulusLength: 2048, privateKeyEncoding: { type: 'pkcs8', format: 'pem' }, publicKeyEncoding: { type: 'spki', format: 'pem' } },
      (error, _public, privateKey) => (error === null ? resolve(privateKey) : reject(error)),
    );
  });
}

/** SigningKeySource holds the key: loaded (or made) once, on first need. */
export class SigningKeySource {
  #loading: Promise<SigningKey> | undefined;
  #key: SigningKey | undefined;
  #subscription: Subscription | undefined;
  #closed = false;

  constructor(
    readonly store: Store,
    /** The data directory, when there is one (the key's file lives there with the SQLite store). */
    readonly dataDir: string | undefined,
  ) {}

  /** where says where the key is kept: `file`, `store` or `memory`. */
  get where(): 'file' | 'store' | 'memory' {
    if (this.store.backend === 'postgres') return 'store';
    return this.store.backend === 'sqlite' && this.dataDir !== undefined ? 'file' : 'memory';
  }

  /** loaded is the key if it was loaded already (verifying a token never makes one). */
  get loaded(): SigningKey | undefined {
    return this.#key;
  }

  /** key loads the key, making and keeping one the first time. */
  key(): Promise<SigningKey> {
    if (this.#key !== undefined) return Promise.resolve(this.#key);
    this.#loading ??= this.#load().then(
      (key) => {
        this.#key = key;
        return key;
      },
      (error: unknown) => {
        this.#loading = undefined;
        throw error;
      },
    );
    return this.#loading;
  }

  /**
   * stateReplaced brings the key in line with a store whose state was replaced (a restore or reset
   * through this replica, on PostgreSQL): the restored key if the new state has one, else this
   * replica's written back. The file and memory forms are not part of the store's state.
   */
  async stateReplaced(): Promise<void> {
    if (this.where === 'store' && this.#key !== undefined) await this.#resync();
  }

  /** close stops following the key's record. */
  close(): void {
    this.#closed = true;
    this.#subscription?.close();
    this.#subscription = undefined;
  }

  #adopt(pem: string): void {
    if (this.#key?.pem !== pem) this.#key = signingKeyFromPem(pem);
  }

  /** #follow adopts every key written to the record by another replica, and resyncs after the state is replaced. */
  async #follow(): Promise<void> {
    if (this.#subscription !== undefined || this.#closed) return;
    const from = await this.store.currentRevision();
    const onReset = (): void => {
      this.#subscription = undefined;
      if (!this.#closed) void this.#resync().catch(() => undefined);
    };
    this.#subscription = await this.store.subscribe(
      from,
      (change) => {
        if (change.type !== 'deleted' && RECORD_KEY === change.key) this.#adopt((change.value as { pem: string }).pem);
      },
      { kinds: [SIGNING_KEY_STORE_KIND], onReset },
    );
  }

  async #resync(): Promise<void> {
    const held = this.#key;
    if (held === undefined) return;
    const kept = await this.store.get<{ pem: string }>(SIGNING_KEY_STORE_KIND, RECORD_KEY);
    if (kept !== undefined) this.#adopt(kept.value.pem);
    else {
      try {
        await this.store.transact((tx) => tx.put(SIGNING_KEY_STORE_KIND, RECORD_KEY, { pem: held.pem }, { expectRevision: 0 }));
      } catch (error) {
        if (!(error instanceof ConflictError)) throw error;
        const winner = await this.store.get<{ pem: string }>(SIGNING_KEY_STORE_KIND, RECORD_KEY);
        if (winner !== undefined) this.#adopt(winner.value.pem);
      }
    }
    await this.#follow();
  }

  async #load(): Promise<SigningKey> {
    switch (this.where) {
      case 'memory':
        return signingKeyFromPem(await generateSigningKeyPem());
      case 'file':
        return signingKeyFromPem(await this.#fromFile(join(this.dataDir!, SIGNING_KEY_FILE)));
      case 'store': {
        const key = signingKeyFromPem(await this.#fromStore());
        this.#key = key;
        await this.#follow();
        return key;
      }
    }
  }

  async #fromFile(path: string): Promise<string> {
    try {
      const kept = readFileSync(path, 'utf8');
      if (kept.trim() !== '') return kept;
    } catch {
      // No key yet: make one below.
    }
    const pem = await generateSigningKeyPem();
    // One process per data directory (its lock), so no other writer races this one.
    writeFileSync(path, pem, { mode: 0o600 });
    return pem;
  }

  async #fromStore(): Promise<string> {
    const kept = await this.store.get<{ pem: string }>(SIGNING_KEY_STORE_KIND, RECORD_KEY);
    if (kept !== undefined) return kept.value.pem;
    const pem = await generateSigningKeyPem();
    try {
      await this.store.transact((tx) => tx.put(SIGNING_KEY_STORE_KIND, RECORD_KEY, { pem }, { expectRevision: 0 }));
      return pem;
    } catch (error) {
      if (!(error instanceof ConflictError)) throw error;
      // Another replica made it first: use theirs.
      const winner = await this.store.get<{ pem: string }>(SIGNING_KEY_STORE_KIND, RECORD_KEY);
      if (winner === undefined) throw error;
      return winner.value.pem;
    }
  }
}
