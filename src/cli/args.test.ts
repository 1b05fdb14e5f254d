import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseStartArgs, START_USAGE, UsageError } from './args.ts';

describe('fogbank start flags', () => {
  it('has the documented defaults', () => {
    assert.deepEqual(parseStartArgs([]), {
      host: '127.0.0.1',
      port: 8780,
      dataDir: './.fogbank',
      ephemeral: false,
      store: 'sqlite',
      storePoolSize: 10,
      adminToken: undefined,
      operations: 'realistic',
      config: undefined,
      logLevel: 'info',
      logFormat: 'text',
      familyOptions: {},
    });
  });

  it('reads `--flag value` and `--flag=value`', () => {
    const args = parseStartArgs([
      '--host',
      '0.0.0.0',
      '--port=0',
      '--data-dir',
      '/tmp/x',
      '--store=memory',
      '--store-pool-size',
      '4',
      '--admin-token',
      't',
      '--operations=instant',
      '--config',
      'c.yaml',
      '--log-level',
      'debug',
      '--log-format=json',
      '--mail-relay',
      'smtp://127.0.0.1:1025',
    ]);
    assert.deepEqual(args, {
      host: '0.0.0.0',
      port: 0,
      dataDir: '/tmp/x',
      ephemeral: false,
      store: 'memory',
      storePoolSize: 4,
      adminToken: 't',
      operations: 'instant',
      config: 'c.yaml',
      logLevel: 'debug',
      logFormat: 'json',
      familyOptions: { mailRelay: 'smtp://127.0.0.1:1025' },
    });
    assert.equal(parseStartArgs(['--ephemeral', '--store', 'memory']).ephemeral, true);
    assert.equal(parseStartArgs(['--upload-limit', '512M']).familyOptions['uploadLimit'], 512 * 1024 ** 2);
    assert.equal(parseStartArgs(['--upload-limit=1048576']).familyOptions['uploadLimit'], 1048576);
    assert.equal(parseStartArgs(['--event-ttl', '1h30m']).familyOptions['eventTtlSeconds'], 5400);
    assert.equal(parseStartArgs(['--upload-deadline', '2m']).uploadDeadlineSeconds, 120);
    assert.equal(parseStartArgs(['--snapshot', 'seed.fogbank']).snapshot, 'seed.fogbank');
    assert.equal(parseStartArgs(['--mail-max-recipients', '500']).familyOptions['mailMaxRecipients'], 500);
    assert.equal(parseStartArgs(['--journal-size', '0']).journalSize, 0);
    assert.equal(parseStartArgs(['--journal-bodies', '64K']).journalBodies, 65536);
  });

  it('takes the store from FOGBANK_STORE unless --store is given', () => {
    const env = { FOGBANK_STORE: 'postgres://fogbank@db:5432/fogbank' };
    assert.equal(parseStartArgs([], env).store, 'postgres://fogbank@db:5432/fogbank');
    assert.equal(parseStartArgs(['--store', 'memory'], env).store, 'memory');
    assert.equal(parseStartArgs([], { FOGBANK_STORE: '' }).store, 'sqlite');
  });

  it('takes every valued flag from FOGBANK_<FLAG>, checked as the flag and overridden by it', () => {
    const env = {
      FOGBANK_ADMIN_TOKEN: 'from-env',
      FOGBANK_PORT: '9999',
      FOGBANK_HOST: '0.0.0.0',
      FOGBANK_DATA_DIR: '/var/lib/fogbank',
      FOGBANK_LOG_FORMAT: 'json',
    };
    const args = parseStartArgs([], env);
    assert.deepEqual([args.adminToken, args.port, args.host, args.dataDir, args.logFormat], ['from-env', 9999, '0.0.0.0', '/var/lib/fogbank', 'json']);
    assert.equal(parseStartArgs(['--port', '0'], env).port, 0);
    assert.throws(
      () => parseStartArgs([], { FOGBANK_PORT: 'eighty' }),
      (error: Error) => error instanceof UsageError && error.message.startsWith('FOGBANK_PORT: --port '),
    );
    // Switches stay flags: an environment variable cannot turn on --ephemeral or --no-tls.
    assert.equal(parseStartArgs([], { FOGBANK_EPHEMERAL: 'true' }).ephemeral, false);
  });

  const bad: [string[], string][] = [
    [['--store-pool-size', '1'], "--store-pool-size must be a number from 2 to 1000, not '1'"],
    [['--store-pool-size=many'], "--store-pool-size must be a number from 2 to 1000, not 'many'"],
    [['--bogus'], 'unknown flag --bogus'],
    [['--port'], '--port needs a value'],
    [['--port', '70000'], "--port must be a number from 0 to 65535, not '70000'"],
    [['--port', '-1'], "--port must be a number from 0 to 65535, not '-1'"],
    [['--operations', 'slow'], "--operations must be realistic or instant, not 'slow'"],
    [['--log-level', 'loud'], "--log-level must be silent, error, warn, info or debug, not 'loud'"],
    [['--ephemeral=yes'], '--ephemeral takes no value'],
    [['--admin-token='], '--admin-token must not be empty'],
    [['--log-format', 'yaml'], "--log-format must be text or json, not 'yaml'"],
    [['start'], "unexpected argument 'start'"],
    [['--mail-relay', 'http://x'], "--mail-relay must be smtp://host:port or smtps://host:port, not 'http://x'"],
    [['--upload-limit', '1T'], "--upload-limit must be a positive number of bytes, optionally with K, M or G, not '1T'"],
    [['--mail-max-recipients', '0'], "--mail-max-recipients must be a number from 1 to 100000, not '0'"],
    [['--snapshot='], '--snapshot must name a file'],
    [['--upload-deadline', '30'], "--upload-deadline must be a duration such as 30s, 2m or 1h, not '30'"],
    [['--journal-size', 'lots'], "--journal-size must be a whole number of requests, not 'lots'"],
    [['--journal-bodies', '1G'], "--journal-bodies must be a number of bytes up to 64M, optionally with K or M, not '1G'"],
    [['--port', '1', '--port=2'], '--port is given more than once'],
    [['--ephemeral', '--ephemeral'], '--ephemeral is given more than once'],
    [['--ephemeral', '--data-dir', 'd'], '--ephemeral writes nothing to disk, so it cannot be combined with --data-dir'],
    [['--data-dir=d', '--ephemeral'], '--ephemeral writes nothing to disk, so it cannot be combined with --data-dir'],
    [['--ephemeral', '--store', 'sqlite'], '--ephemeral keeps state in memory, so it cannot be combined with --store sqlite'],
    [['--tls-cert', 'c.pem'], '--tls-cert and --tls-key go together: give both, or neither'],
    [['--tls-key', 'k.pem'], '--tls-cert and --tls-key go together: give both, or neither'],
    [['--tls-ca', 'ca.pem'], "--tls-ca goes with --tls-cert and --tls-key (fogbank's own certificates use fogbank's own CA)"],
    [['--no-tls', '--tls-cert', 'c.pem', '--tls-key', 'k.pem'], '--no-tls serves no HTTPS, so it cannot be combined with --tls-cert, --tls-key or --tls-ca'],
    [['--no-tls=yes'], '--no-tls takes no value'],
    [['--tls-cert='], '--tls-cert must name a file'],
  ];
  for (const [argv, message] of bad) {
    it(`rejects ${argv.join(' ')}`, () => {
      assert.throws(
        () => parseStartArgs(argv),
        (error: unknown) => error instanceof UsageError && error.message === message,
      );
    });
  }
});

describe('fogbank start TLS flags', () => {
  it("leaves TLS to its default (fogbank's own certificates) when no flag is given", () => {
    assert.equal(parseStartArgs([]).tls, undefined);
  });
  it('reads --no-tls', () => {
    assert.equal(parseStartArgs(['--no-tls']).tls, false);
  });
  it('reads the files of --tls-cert, --tls-key and --tls-ca', () => {
    assert.deepEqual(parseStartArgs(['--tls-cert', 'c.pem', '--tls-key=k.pem', '--tls-ca', 'ca.pem']).tls, {
      certFile: 'c.pem',
      keyFile: 'k.pem',
      caFile: 'ca.pem',
    });
  });
});

describe('fogbank start --help', () => {
  it('describes every flag with its default', () => {
    for (const flag of [
      '--host',
      '--port',
      '--data-dir',
      '--ephemeral',
      '--store',
      '--admin-token',
      '--operations',
      '--config',
      '--log-level',
      '--log-format',
    ]) {
      const line = START_USAGE.split('\n').find((l) => l.startsWith(`  ${flag} `) || l === `  ${flag}`);
      assert.ok(line !== undefined, `${flag} is not in the help`);
      assert.match(line, /\(default: [^)]+\)$/, `${flag} has no default`);
    }
    assert.match(START_USAGE, /--port PORT +port to listen on; 0 picks a free one \(the banner shows it\) \(default: 8780\)/);
  });

  it('keeps every description in one column, clear of the longest flag', () => {
    const rows = START_USAGE.split('\n').filter((line) => line.startsWith('  -'));
    const starts = rows.map((line) => /^ {2}\S+(?: \S+)? {2,}(?=\S)/.exec(line)?.[0].length);
    assert.ok(
      starts.every((start) => start !== undefined),
      'a description runs into its flag',
    );
    assert.equal(new Set(starts).size, 1, 'descriptions start at different columns');
  });
});
