/**
 * `fogbank policy replay` (issue 39): recorded requests — the guard decisions in fogbank's request
 * journal, a guard's log file, a browser's HAR file — evaluated under the policy in force and a
 * proposed one (a whole policy file in JSON or YAML, as `gcloud compute security-policies export`
 * writes it, or rule edits `--rule PRIORITY=JSON`), through `POST /_fogbank/securityPolicies:replay`,
 * printed as the requests whose outcome changes, the changes by kind, and the rule-coverage table;
 * `--format json` prints the API's answer. Files are read here (core's parsers), so a line that
 * does not parse is named with its file and line before anything is sent.
 */
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { parse as parseYaml, YAMLParseError } from 'yaml';
import { parseGuardLog } from '../core/recorded-traffic/guard-log.ts';
import { parseHar } from '../core/recorded-traffic/har.ts';
import { namingRecorded, type RecordedTraffic, RecordedTrafficError } from '../core/recorded-traffic/recorded-request.ts';
import { AdminFailure } from './admin-client.ts';
import { UsageError } from './args.ts';
import { type Flags, one, parseFlags, policyFlag, post, serverOf, wafUnknownFlag } from './policy-commands.ts';

/** POLICY_REPLAY_USAGE is `fogbank policy replay --help`. */
export const POLICY_REPLAY_USAGE = `usage: fogbank policy replay --policy NAME (--proposed FILE | --rule PRIORITY=JSON …)
                             (--from journal [--since TIME] | --from guard-log FILE | --from har FILE [--source-ip IP])
                             [--waf-unknown no-match|match] [--format table|json] [--url URL] [--token TOKEN] [--data-dir DIR]

  evaluates recorded requests, in recorded order and on their recorded times (so rate limits
  cross their thresholds as they did), under the security policy NAME as it is now and under the
  proposed one, and prints the requests whose outcome changes (allow → deny, deny → allow,
  allow → throttle(deny-429)) with the deciding rule before and after, the changes by kind, and
  how many requests each rule matched under each policy.
  --proposed FILE     a whole policy, JSON or YAML (gcloud compute security-policies export)
  --rule P=JSON       an edit to a copy of the policy in force: adds the rule at priority P, or
                      patches the one there (as rules update does); P=null removes it. Repeatable.
  --from journal      the guard's decisions in fogbank's request journal (--since an RFC 3339 time)
  --from guard-log F  a guard's stdout, one log line a request
  --from har F        a HAR file saved by a browser (its requests from --source-ip, default 127.0.0.1)`;

/** runPolicyReplay runs `fogbank policy replay …` and resolves with the exit code. */
export async function runPolicyReplay(argv: readonly string[]): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(`${POLICY_REPLAY_USAGE}\n`);
    return 0;
  }
  const flags = parseFlags(
    argv,
    ['--policy', '--proposed', '--rule', '--from', '--since', '--source-ip', '--waf-unknown', '--format', '--url', '--token', '--data-dir'],
    [],
    ['--rule'],
  );
  const policy = policyFlag(flags);
  const wafUnknown = wafUnknownFlag(flags);
  const format = one(flags, '--format') ?? 'table';
  if (format !== 'table' && format !== 'json') throw new UsageError(`--format must be table or json, not '${format}'`);
  const proposed = proposedOf(flags);
  const from = one(flags, '--from');
  if (from === undefined) throw new UsageError('--from is required: journal, guard-log FILE or har FILE');
  const [file, extra] = flags.words;
  const body: Record<string, unknown> = { policy, ...proposed, wafUnknown };
  let at: readonly string[] | undefined;
  let skipped: readonly { at: string; reason: string }[] = [];
  if (from === 'journal') {
    if (file !== undefined) throw new UsageError(`unexpected argument '${file}': --from journal reads the running server's journal`);
    if (flags.values.has('--source-ip')) throw new UsageError('--source-ip goes with --from har');
    body['source'] = 'journal';
    const since = one(flags, '--since');
    if (since !== undefined) body['since'] = since;
  } else if (from === 'guard-log' || from === 'har') {
    if (file === undefined) throw new UsageError(`--from ${from} needs the file: --from ${from} FILE`);
    if (extra !== undefined) throw new UsageError(`unexpected argument '${extra}'`);
    if (flags.values.has('--since')) throw new UsageError('--since goes with --from journal');
    const sourceIp = one(flags, '--source-ip') ?? '127.0.0.1';
    if (from === 'guard-log' && flags.values.has('--source-ip')) throw new UsageError('--source-ip goes with --from har: a guard log names each client');
    if (isIP(sourceIp) === 0) throw new UsageError(`--source-ip must be an IPv4 or IPv6 address, not '${sourceIp}'`);
    const traffic = recordingOf(file, from, sourceIp);
    body['requests'] = traffic.requests.map((each) => ({ ...each.request, ...(each.time === undefined ? {} : { time: each.time }) }));
    at = traffic.requests.map((each) => `${file}: ${each.at}`);
    skipped = traffic.skipped.map((each) => ({ at: `${file}: ${each.at}`, reason: each.reason }));
  } else throw new UsageError(`--from must be journal, guard-log or har, not '${from}'`);
  let answer: Record<string, unknown>;
  try {
    answer = await post(serverOf(flags), '/_fogbank/securityPolicies:replay', body);
  } catch (error) {
    // A recorded request the server refuses is named by its file and line.
    if (error instanceof AdminFailure && at !== undefined) throw new AdminFailure(namingRecorded(error.message, at), error.exitCode);
    throw error;
  }
  const changed = ((answer['changed'] ?? []) as Record<string, unknown>[]).map((each) =>
    at === undefined ? each : { ...each, at: at[each['index'] as number] },
  );
  const result = { ...answer, changed, skipped: [...skipped, ...((answer['skipped'] ?? []) as { at: string; reason: string }[])] };
  process.stdout.write(format === 'json' ? `${JSON.stringify(result)}\n` : describeReplay(result));
  return 0;
}

/** proposedOf reads --proposed FILE or the --rule edits (one of them). */
function proposedOf(flags: Flags): Record<string, unknown> {
  const file = one(flags, '--proposed');
  const rules = flags.values.get('--rule') ?? [];
  if ((file === undefined) === (rules.length === 0)) throw new UsageError('give one of --proposed FILE or --rule PRIORITY=JSON');
  if (file !== undefined) {
    const text = readText(file);
    let parsed: unknown;
    try {
      parsed = parseYaml(text, { maxAliasCount: 100 });
    } catch (error) {
      if (error instanceof YAMLParseError) {
        const line = error.linePos?.[0];
        throw new UsageError(
          `${file}${line === undefined ? '' : `: line ${line.line}, column ${line.col}`}: not JSON or YAML (${error.message.split('\n')[0]})`,
        );
      }
      throw error;
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
      throw new UsageError(`${file} is not a security policy (an object with name, type and rules)`);
    return { proposed: parsed };
  }
  return {
    rules: rules.map((edit) => {
      const match = /^(\d{1,10})=([\s\S]+)$/.exec(edit);
      if (match === null) throw new UsageError(`--rule must be PRIORITY=JSON such as 1000='{"action":"deny(403)",…}' (or 1000=null), not '${edit}'`);
      let rule: unknown;
      try {
        rule = JSON.parse(match[2]!);
      } catch (error) {
        throw new UsageError(`--rule ${match[1]}: the rule is not JSON (${(error as Error).message})`);
      }
      return { priority: Number(match[1]), rule };
    }),
  };
}

/** readText reads a file, or says it cannot. */
function readText(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? 'unreadable'})`);
  }
}

/** recordingOf reads a guard log or HAR file, naming the file and line of what does not parse. */
function recordingOf(file: string, kind: 'guard-log' | 'har', sourceIp: string): RecordedTraffic {
  const text = readText(file);
  try {
    return kind === 'har' ? parseHar(text, sourceIp) : parseGuardLog(text);
  } catch (error) {
    if (error instanceof RecordedTrafficError) throw new UsageError(`${file}: ${error.message}`);
    throw error;
  }
}

/** describeReplay is the answer for a person: the changes, their kinds, the coverage table, what was skipped. */
export function describeReplay(answer: Record<string, unknown>): string {
  const changed = (answer['changed'] ?? []) as Record<string, unknown>[];
  const lines: string[] = [`replayed ${String(answer['evaluated'])} requests against ${String(answer['policy'])}: ${changed.length} change outcome`];
  const outcome = (side: unknown): string => {
    const each = (side ?? {}) as Record<string, unknown>;
    const ids = each['preconfiguredExprIds'] as string[] | undefined;
    return `${String(each['action'])} (rule ${String(each['priority'])}${ids === undefined ? '' : `; ${ids.join(', ')}`})`;
  };
  for (const each of changed) {
    const request = (each['request'] ?? {}) as Record<string, unknown>;
    lines.push(
      `  ${String(each['at'] ?? `#${String(each['index'])}`)}  ${String(request['time'])}  ${String(request['method'])} ${String(request['url'])} from ${String(request['sourceIp'])}`,
      `      ${outcome(each['before'])}  →  ${outcome(each['after'])}`,
    );
  }
  const transitions = (answer['transitions'] ?? []) as Record<string, unknown>[];
  if (transitions.length > 0) {
    lines.push('', 'changes');
    for (const each of transitions) lines.push(`  ${String(each['count']).padStart(6)}  ${String(each['from'])} → ${String(each['to'])}`);
  }
  const counts = new Map(((answer['countsByRule'] ?? []) as Record<string, unknown>[]).map((each) => [each['priority'], each]));
  lines.push('', '  priority     matched before  matched after  changes decided before  after');
  for (const row of (answer['coverage'] ?? []) as Record<string, unknown>[]) {
    const share = counts.get(row['priority']);
    const cell = (value: unknown): string => (value === null || value === undefined ? '-' : String(value));
    lines.push(
      `  ${String(row['priority']).padEnd(11)}  ${cell(row['matchedBefore']).padStart(14)}  ${cell(row['matchedAfter']).padStart(13)}  ${cell(share?.['before'] ?? 0).padStart(22)}  ${cell(share?.['after'] ?? 0).padStart(5)}`,
    );
  }
  const never = (answer['neverMatched'] ?? []) as number[];
  lines.push(`never matched (proposed policy): ${never.length === 0 ? 'none' : never.join(', ')}`);
  const failures = (answer['wafFailures'] ?? []) as string[];
  for (const failure of failures) lines.push(`WAF: ${failure}; its calls decided as --waf-unknown says`);
  const skipped = (answer['skipped'] ?? []) as Record<string, unknown>[];
  if (skipped.length > 0) {
    lines.push('', `skipped ${skipped.length}`);
    for (const each of skipped) lines.push(`  ${String(each['at'])}: ${String(each['reason'])}`);
  }
  return `${lines.join('\n')}\n`;
}
