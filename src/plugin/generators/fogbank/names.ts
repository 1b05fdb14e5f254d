// Words a generated top-level name may not be: JS/TS reserved words, TS type keywords, and the
// globals the generated code itself refers to.
const RESERVED = new Set(
  (
    'break case catch class const continue debugger default delete do else enum export extends false finally for ' +
    'function if import in instanceof new null return super switch this throw true try typeof var void while with ' +
    'as implements interface let package private protected public static yield await async of type declare ' +
    'namespace module abstract any boolean never number object string symbol undefined unknown bigint ' +
    'constructor arguments eval infer is keyof readonly require satisfies unique global ' +
    'Array Record Promise Error Object String Number Boolean Date JSON Map Set Symbol BigInt globalThis'
  ).split(' '),
);

/** safeTypeName appends `$` to a name that would be illegal or shadow a global we use. */
export function safeTypeName(name: string): string {
  return RESERVED.has(name) ? `${name}$` : name;
}

/** safeMemberName escapes class member names that mean something else (`constructor`). */
export function safeMemberName(name: string): string {
  return name === 'constructor' ? 'constructor$' : name;
}

/** propertyKey quotes an object key unless it is a plain identifier. */
export function propertyKey(name: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(name) ? name : JSON.stringify(name);
}

/** lowerFirst turns an rpc name into a method name: `AggregatedList` → `aggregatedList`. */
export function lowerFirst(name: string): string {
  return name.charAt(0).toLowerCase() + name.slice(1);
}

/** UniqueNames hands out names unique within one generated file. */
export class UniqueNames {
  private readonly used = new Set<string>();
  /** claim returns `wanted`, or `wanted$1`, `wanted$2`… if taken. */
  claim(wanted: string): string {
    let name = wanted;
    for (let i = 1; this.used.has(name); i++) name = `${wanted}$${i}`;
    this.used.add(name);
    return name;
  }
}
