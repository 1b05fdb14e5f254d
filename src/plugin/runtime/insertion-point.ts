/** insertionPointMarker is the annotation text a host searches for: `@@protoc_insertion_point(NAME)`. */
export function insertionPointMarker(name: string): string {
  return `@@protoc_insertion_point(${name})`;
}
