/**
 * What a replay answers: the requests whose outcome changes between the policy in force and the
 * proposed one (what the client gets differs: allow → deny, deny → allow, a throttle threshold
 * crossed), with the deciding rule before and after; per rule, how many of those changes it
 * decided before and after; and the changes by kind (`allow → throttle(deny-429)`: 3).
 */
import type { TrafficRequest } from '../evaluation/traffic-request.ts';
import type { ReplayOutcome } from './replay-outcome.ts';

/** ChangedRequest is one request whose outcome changes. */
export interface ChangedRequest {
  readonly index: number;
  readonly request: { readonly method: string; readonly url: string; readonly sourceIp: string; readonly time: string };
  readonly before: ReplayOutcome;
  readonly after: ReplayOutcome;
}

/** RuleCount is one rule's share of the changes: how many changed requests it decided before and after. */
export interface RuleCount {
  readonly priority: number;
  readonly before: number;
  readonly after: number;
}

/** Transition is one kind of change and how many requests made it. */
export interface Transition {
  readonly from: string;
  readonly to: string;
  readonly count: number;
}

/** ReplayDiff is the changes. */
export interface ReplayDiff {
  readonly changed: ChangedRequest[];
  readonly countsByRule: RuleCount[];
  readonly transitions: Transition[];
}

/** diffOutcomes compares the outcomes of the same requests (same order) under the two policies. */
export function diffOutcomes(
  requests: readonly TrafficRequest[],
  times: readonly number[],
  before: readonly ReplayOutcome[],
  after: readonly ReplayOutcome[],
): ReplayDiff {
  const changed: ChangedRequest[] = [];
  const counts = new Map<number, { before: number; after: number }>();
  const transitions = new Map<string, Transition>();
  const count = (priority: number): { before: number; after: number } => {
    const known = counts.get(priority);
    if (known !== undefined) return known;
    const entry = { before: 0, after: 0 };
    counts.set(priority, entry);
    return entry;
  };
  requests.forEach((request, index) => {
    const was = before[index]!;
    const now = after[index]!;
    if (was.effect === now.effect) return;
    changed.push({
      index,
      request: { method: request.method, url: request.url, sourceIp: request.sourceIp, time: new Date(times[index]!).toISOString() },
      before: was,
      after: now,
    });
    count(was.priority).before++;
    count(now.priority).after++;
    const key = `${was.action}\n${now.action}`;
    const seen = transitions.get(key);
    transitions.set(key, { from: was.action, to: now.action, count: (seen?.count ?? 0) + 1 });
  });
  return {
    changed,
    countsByRule: [...counts].sort(([a], [b]) => a - b).map(([priority, { before: b, after: a }]) => ({ priority, before: b, after: a })),
    transitions: [...transitions.values()].sort((a, b) => b.count - a.count),
  };
}
