/** Which paths are a Pod's container streams (light: the family's routes test it before its working parts load). */

/** POD_STREAM_SUBRESOURCES are the Pod subresources that stream from a container. */
export const POD_STREAM_SUBRESOURCES: ReadonlySet<string> = new Set(['log', 'exec', 'attach', 'portforward']);

/** isPodStreamPath: `namespaces/{ns}/pods/{name}/{log|exec|attach|portforward}` after `/api/v1`. */
export function isPodStreamPath(segments: readonly string[]): boolean {
  const [first, , resource, name, subresource, ...beyond] = segments;
  return (
    first === 'namespaces' &&
    resource === 'pods' &&
    name !== undefined &&
    subresource !== undefined &&
    beyond.length === 0 &&
    POD_STREAM_SUBRESOURCES.has(subresource)
  );
}
