import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { rfc3339 } from './time.ts';

describe('rfc3339', () => {
  it('renders milliseconds with an explicit offset, the same again from its cache', () => {
    assert.equal(rfc3339(Date.UTC(2025, 0, 2, 3, 4, 5, 67)), '2025-01-02T03:04:05.067-00:00');
    assert.equal(rfc3339(Date.UTC(2025, 0, 2, 3, 4, 5, 67)), '2025-01-02T03:04:05.067-00:00');
    // Two times that share a cache slot each keep their own text.
    assert.equal(rfc3339(64), '1970-01-01T00:00:00.064-00:00');
    assert.equal(rfc3339(128), '1970-01-01T00:00:00.128-00:00');
    assert.equal(rfc3339(64), '1970-01-01T00:00:00.064-00:00');
  });
});
