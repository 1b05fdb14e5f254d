import type pg from 'pg';
import { unavailableOr } from './postgres-connection.ts';
import type { Leases } from './store.ts';

/**
 * PostgresLeases keeps leases in fogbank_leases, timed by the database's clock so replicas
 * with skewed clocks agree on who holds what. One statement takes, renews or refuses a lease.
 */
export class PostgresLeases implements Leases {
  readonly shared = true;
  readonly #pool: pg.Pool;

  constructor(pool: pg.Pool) {
    this.#pool = pool;
  }

  async acquire(name: string, holder: string, ttlMs: number): Promise<boolean> {
    try {
      const result = await this.#pool.query({
        name: 'fogbank_lease_acquire',
        text:
          "INSERT INTO fogbank_leases (name, holder, expires_at) VALUES ($1, $2, clock_timestamp() + $3 * interval '1 millisecond') " +
          'ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at ' +
          'WHERE fogbank_leases.holder = excluded.holder OR fogbank_leases.expires_at < clock_timestamp() RETURNING holder',
        values: [name, holder, ttlMs],
      });
      return result.rowCount === 1;
    } catch (error) {
      throw unavailableOr(error);
    }
  }

  async release(name: string, holder: string): Promise<void> {
    try {
      await this.#pool.query({ name: 'fogbank_lease_release', text: 'DELETE FROM fogbank_leases WHERE name = $1 AND holder = $2', values: [name, holder] });
    } catch (error) {
      throw unavailableOr(error);
    }
  }
}
