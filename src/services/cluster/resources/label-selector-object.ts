/**
 * A `metav1.LabelSelector` object (matchLabels, matchExpressions) as workload kinds carry it:
 * matching a label set, and Go's `%#v` rendering that the apiserver's field errors print.
 */

type Json = Record<string, unknown>;

/** selectorMatches reports whether labels satisfy a LabelSelector object (empty selects everything). */
export function selectorMatches(selector: Json, labels: Readonly<Record<string, string>>): boolean {
  const matchLabels = (selector['matchLabels'] ?? {}) as Record<string, string>;
  for (const [key, value] of Object.entries(matchLabels)) if (labels[key] !== value) return false;
  for (const expression of (selector['matchExpressions'] ?? []) as Json[]) {
    const key = String(expression['key'] ?? '');
    const values = (expression['values'] ?? []) as string[];
    const has = Object.hasOwn(labels, key);
    switch (expression['operator']) {
      case 'In':
        if (!has || !values.includes(labels[key]!)) return false;
        break;
      case 'NotIn':
        if (has && values.includes(labels[key]!)) return false;
        break;
      case 'Exists':
        if (!has) return false;
        break;
      case 'DoesNotExist':
        if (has) return false;
        break;
      default:
        return false;
    }
  }
  return true;
}

/** selectorIsEmpty reports a selector with neither matchLabels nor matchExpressions. */
export function selectorIsEmpty(selector: Json): boolean {
  return Object.keys((selector['matchLabels'] ?? {}) as Json).length + ((selector['matchExpressions'] ?? []) as unknown[]).length === 0;
}

/** goStringMap prints a label map as Go's `%#v` does: `map[string]string{"app":"web"}`, keys sorted, nil as `map[string]string(nil)`. */
export function goStringMap(labels: Readonly<Record<string, string>> | undefined): string {
  if (labels === undefined) return 'map[string]string(nil)';
  const entries = Object.keys(labels)
    .sort()
    .map((key) => `${JSON.stringify(key)}:${JSON.stringify(labels[key])}`);
  return `map[string]string{${entries.join(', ')}}`;
}

/** selectorText renders a selector as kubectl's wide column does (`app=web,tier in (a,b)`). */
export function selectorText(selector: Json | undefined): string {
  if (selector === undefined) return '<none>';
  const parts: string[] = [];
  for (const [key, value] of Object.entries((selector['matchLabels'] ?? {}) as Record<string, string>)) parts.push(`${key}=${value}`);
  for (const expression of (selector['matchExpressions'] ?? []) as Json[]) {
    const key = String(expression['key'] ?? '');
    const values = ((expression['values'] ?? []) as string[]).join(',');
    if (expression['operator'] === 'In') parts.push(`${key} in (${values})`);
    else if (expression['operator'] === 'NotIn') parts.push(`${key} notin (${values})`);
    else if (expression['operator'] === 'Exists') parts.push(key);
    else parts.push(`!${key}`);
  }
  return parts.length === 0 ? '<none>' : parts.join(',');
}
