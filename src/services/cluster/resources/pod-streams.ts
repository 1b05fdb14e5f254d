/**
 * The Pod subresources that reach a container — `log`, `exec`, `attach`, `portforward` — answered as the
 * apiserver and a kubelet whose container runtime holds no containers answer them (fogbank runs
 * none): the apiserver's checks (upstream `pkg/registry/core/pod/strategy.go` LogLocation,
 * streamLocation; `pkg/apis/core/validation` ValidatePodLogOptions), then the kubelet's
 * (`pkg/kubelet/kubelet_pods.go` validateContainerLogStatus, `GetExec`/`GetAttach`'s
 * findContainer, `GetPortForward`'s FindPod).
 *
 * - `log` of a Pod not bound to a node: an empty log (the apiserver's nil location). Of a bound
 *   one: the kubelet's refusal for a container that is waiting, terminated without an id, or
 *   unknown (400 with its text, as the apiserver relays it); a container whose status says it
 *   runs or ran (a simulated one) has written nothing: an empty log, `follow` included (the
 *   stream ends at once, there being nothing to wait for).
 * - `exec`/`attach`: a Pod not bound to a node is the apiserver's 400 `does not have a host
 *   assigned`; a bound one gets the kubelet's `container not found ("<name>")`, relayed as the
 *   failed upgrade (500, plain text), which kubectl prints as
 *   `error: unable to upgrade connection: container not found ("<name>")`.
 * - `portforward`: likewise no host is the apiserver's 400 (PortForwardLocation names no
 *   container); a bound one gets the kubelet's `pod not found ("<name>_<namespace>")` (its runtime
 *   has no sandbox for the Pod), relayed as the failed upgrade (500, plain text).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FieldError } from '../apimachinery/field-errors.ts';
import { parseInteger, type Query, single } from '../apimachinery/query-options.ts';
import type { GenericRegistry } from '../apimachinery/registry.ts';
import type { ViewIndex } from '../apimachinery/handler-context.ts';
import { badRequest, invalidObject } from '../apimachinery/status.ts';
import type { BuiltinObject } from '../builtin/behaviour.ts';
import { listOf, recordAt } from './pod-spec.ts';

type Json = Record<string, unknown>;

function containerNames(pod: BuiltinObject): string[] {
  const spec = recordAt(pod, 'spec');
  return [...listOf(spec?.['initContainers']), ...listOf(spec?.['containers']), ...listOf(spec?.['ephemeralContainers'])].map((container) =>
    String(container['name'] ?? ''),
  );
}

/** containerOf is the container a request names, or the Pod's only one (validateContainer / streamLocation). */
export function containerOf(pod: BuiltinObject, requested: string | undefined): string {
  const name = pod.metadata.name ?? '';
  if (requested === undefined || requested === '') {
    const containers = listOf(recordAt(pod, 'spec')?.['containers']);
    if (containers.length === 1) return String(containers[0]!['name'] ?? '');
    if (containers.length === 0) throw badRequest(`a container name must be specified for pod ${name}`);
    throw badRequest(`a container name must be specified for pod ${name}, choose one of: [${containerNames(pod).join(' ')}]`);
  }
  if (!containerNames(pod).includes(requested)) throw badRequest(`container ${requested} is not valid for pod ${name}`);
  return requested;
}

function validateLogOptions(query: Query, name: string): void {
  const errors: FieldError[] = [];
  const tailLines = parseInteger(query, 'tailLines');
  const limitBytes = parseInteger(query, 'limitBytes');
  const sinceSeconds = parseInteger(query, 'sinceSeconds');
  if (tailLines !== undefined && tailLines < 0n)
    errors.push({ type: 'FieldValueInvalid', field: 'tailLines', value: Number(tailLines), detail: 'must be greater than or equal to 0' });
  if (limitBytes !== undefined && limitBytes < 1n)
    errors.push({ type: 'FieldValueInvalid', field: 'limitBytes', value: Number(limitBytes), detail: 'must be greater than 0' });
  if (sinceSeconds !== undefined && single(query, 'sinceTime') !== undefined) {
    errors.push({ type: 'FieldValueForbidden', field: '', detail: 'at most one of `sinceTime` or `sinceSeconds` may be specified' });
  } else if (sinceSeconds !== undefined && sinceSeconds < 1n) {
    errors.push({ type: 'FieldValueInvalid', field: 'sinceSeconds', value: Number(sinceSeconds), detail: 'must be greater than 0' });
  }
  if (errors.length > 0) throw invalidObject({ group: '', kind: 'PodLogOptions' }, name, errors);
}

function statusOf(pod: BuiltinObject, container: string): Json | undefined {
  const status = recordAt(pod, 'status');
  for (const list of ['containerStatuses', 'initContainerStatuses', 'ephemeralContainerStatuses']) {
    const found = listOf(status?.[list]).find((entry) => entry['name'] === container);
    if (found !== undefined) return found;
  }
  return undefined;
}

function nonEmpty(value: unknown): boolean {
  return typeof value === 'string' && value !== '';
}

/** kubeletLogRefusal is validateContainerLogStatus's error for a container with no log to serve, if any. */
export function kubeletLogRefusal(pod: BuiltinObject, container: string, previous: boolean): string | undefined {
  const podName = pod.metadata.name ?? '';
  const status = statusOf(pod, container);
  const quoted = `container ${JSON.stringify(container)} in pod ${JSON.stringify(podName)}`;
  if (status === undefined) return `${quoted} is not available`;
  const state = recordAt(status, 'state');
  const last = recordAt(status, 'lastState', 'terminated');
  const terminated = recordAt(state, 'terminated');
  const waiting = recordAt(state, 'waiting');
  if (previous) return last !== undefined && nonEmpty(last['containerID']) ? undefined : `previous terminated ${quoted} not found`;
  if (recordAt(state, 'running') !== undefined) return undefined;
  if (terminated !== undefined)
    return nonEmpty(terminated['containerID']) || (last !== undefined && nonEmpty(last['containerID'])) ? undefined : `${quoted} is terminated`;
  if (last !== undefined) return nonEmpty(last['containerID']) ? undefined : `${quoted} is terminated`;
  if (waiting !== undefined) {
    const reason = String(waiting['reason'] ?? '');
    if (reason === 'ErrImagePull') return `${quoted} is waiting to start: image can't be pulled`;
    if (reason === 'ImagePullBackOff') return `${quoted} is waiting to start: trying and failing to pull image`;
    return `${quoted} is waiting to start: ${reason}`;
  }
  return `${quoted} is waiting to start - no logs yet`;
}

function nodeNameOf(pod: BuiltinObject): string {
  const nodeName = recordAt(pod, 'spec')?.['nodeName'];
  return typeof nodeName === 'string' ? nodeName : '';
}

/** PodStreamContext is what answering needs: the registry to read the Pod with, and the views to find its resource by. */
export interface PodStreamContext {
  readonly registry: GenericRegistry;
  readonly index: ViewIndex;
}

/** servePodStream answers `namespaces/{ns}/pods/{name}/{log|exec|attach|portforward}` (isPodStreamPath). */
export async function servePodStream(
  context: PodStreamContext,
  segments: readonly string[],
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<FastifyReply> {
  const [, namespace, , podName = '', subresource = ''] = segments;
  const view = context.index.find('', 'v1', 'pods')!;
  const record = await context.registry.read({ view, group: '', namespace }, podName, undefined);
  return answer(subresource, record.value as BuiltinObject, (request.query ?? {}) as Query, reply);
}

function answer(subresource: string, pod: BuiltinObject, query: Query, reply: FastifyReply): FastifyReply {
  const name = pod.metadata.name ?? '';
  if (subresource === 'log') {
    validateLogOptions(query, name);
    const container = containerOf(pod, single(query, 'container'));
    if (nodeNameOf(pod) !== '') {
      const refusal = kubeletLogRefusal(pod, container, (single(query, 'previous') ?? 'false') !== 'false');
      if (refusal !== undefined) throw badRequest(refusal);
    }
    return reply.code(200).header('content-type', 'text/plain').send('');
  }
  if (subresource === 'portforward') {
    if (nodeNameOf(pod) === '') throw badRequest(`pod ${name} does not have a host assigned`);
    return failedUpgrade(reply, `pod not found (${JSON.stringify(`${name}_${pod.metadata.namespace ?? ''}`)})`);
  }
  const container = containerOf(pod, single(query, 'container'));
  if (nodeNameOf(pod) === '') throw badRequest(`pod ${name} does not have a host assigned`);
  return failedUpgrade(reply, `container not found (${JSON.stringify(container)})`);
}

/** failedUpgrade relays the kubelet's refusal to upgrade the connection: its status (500, streaming.WriteError) and plain-text error. */
function failedUpgrade(reply: FastifyReply, error: string): FastifyReply {
  return reply.code(500).header('content-type', 'text/plain; charset=utf-8').send(error);
}
