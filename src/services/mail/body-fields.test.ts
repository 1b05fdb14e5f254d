import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Authenticator } from '../../core/auth.ts';
import { ManualClock, realTimers } from '../../lib/clock.ts';
import { seededIds } from '../../lib/ids.ts';
import { buildServer, type FogbankServer } from '../../core/server.ts';
import { MemoryStore } from '../../store/memory-store.ts';
import { stringListField } from './body-fields.ts';
import { mailService } from './index.ts';

const ann = { authorization: 'Bearer ann' };
const BAD_REQUEST = 'type.googleapis.com/google.rpc.BadRequest';

describe("label lists in a modify body, as Google's front end reads them", () => {
  let app: FogbankServer;
  let id: string;
  before(async () => {
    const auth = new Authenticator('admin', [{ token: 'ann', email: 'ann@example.com', scopes: ['https://mail.google.com/'], permissions: [] }]);
    app = await buildServer(
      {
        store: new MemoryStore(),
        clock: new ManualClock(Date.UTC(2025, 5, 1)),
        timers: realTimers,
        ids: seededIds('body-fields'),
        auth,
        operations: 'instant',
      },
      [mailService],
      { logLevel: 'silent', bodyLimit: 1024 * 1024 },
    );
    const raw = Buffer.from('To: ann@example.com\r\nSubject: s\r\n\r\nx').toString('base64url');
    const sent = await app.inject({ method: 'POST', url: '/gmail/v1/users/me/messages/send', headers: ann, payload: { raw } });
    id = sent.json().id;
  });
  after(() => app.close());

  const modify = (payload: unknown) =>
    app.inject({ method: 'POST', url: `/gmail/v1/users/me/messages/${id}/modify`, headers: ann, payload: payload as Record<string, unknown> });

  test('answers a label id that is an object, array, number or boolean with 400 INVALID_ARGUMENT naming the proto field and index', async () => {
    const cases: ReadonlyArray<readonly [Record<string, unknown>, string, string]> = [
      [{ addLabelIds: [{ toString: [] }] }, 'add_label_ids[0]', '{"toString":[]}'],
      [{ addLabelIds: ['STARRED', ['x']] }, 'add_label_ids[1]', '["x"]'],
      [{ removeLabelIds: [7] }, 'remove_label_ids[0]', '7'],
      [{ removeLabelIds: [true] }, 'remove_label_ids[0]', 'true'],
      [{ addLabelIds: { toString: null } }, 'add_label_ids', '{"toString":null}'],
      [{ addLabelIds: 5 }, 'add_label_ids', '5'],
    ];
    for (const [payload, field, shown] of cases) {
      const response = await modify(payload);
      const message = `Invalid value at '${field}' (TYPE_STRING), ${shown}`;
      assert.equal(response.statusCode, 400, JSON.stringify(payload));
      assert.deepEqual(response.json(), {
        error: {
          code: 400,
          message,
          errors: [{ message, domain: 'global', reason: 'invalid' }],
          status: 'INVALID_ARGUMENT',
          details: [{ '@type': BAD_REQUEST, fieldViolations: [{ field, description: message }] }],
        },
      });
    }
  });

  test("answers a null label id with the front end's repeated-field 400", async () => {
    const response = await modify({ removeLabelIds: ['UNREAD', null] });
    assert.equal(response.statusCode, 400);
    assert.equal(response.json().error.message, "Invalid JSON payload received. Null values are not allowed in repeated field 'remove_label_ids'.");
    assert.equal(response.json().error.status, 'INVALID_ARGUMENT');
  });

  test('leaves the message as it was when the body is refused', async () => {
    await modify({ addLabelIds: ['STARRED', 1] });
    const message = (await app.inject({ method: 'GET', url: `/gmail/v1/users/me/messages/${id}?format=minimal`, headers: ann })).json();
    assert.equal(message.labelIds.includes('STARRED'), false);
  });

  test('still reads string lists, a single string and null as before', async () => {
    assert.equal((await modify({ addLabelIds: ['STARRED'], removeLabelIds: null })).statusCode, 200);
    assert.deepEqual(stringListField({ addLabelIds: 'STARRED' }, 'addLabelIds'), ['STARRED']);
    assert.deepEqual(stringListField({}, 'toString'), []);
  });
});
