/**
 * cEscape renders bytes the way protobuf's CEscape does, which is how protoc quotes a plugin's
 * unparseable output: C escapes for \n \r \t " ' \, three-digit octal for other non-printables.
 */
export function cEscape(bytes: Uint8Array): string {
  const out: string[] = [];
  for (const b of bytes) {
    switch (b) {
      case 0x0a:
        out.push('\\n');
        break;
      case 0x0d:
        out.push('\\r');
        break;
      case 0x09:
        out.push('\\t');
        break;
      case 0x22:
        out.push('\\"');
        break;
      case 0x27:
        out.push("\\'");
        break;
      case 0x5c:
        out.push('\\\\');
        break;
      default:
        if (b < 0x20 || b >= 0x7f) out.push('\\' + b.toString(8).padStart(3, '0'));
        else out.push(String.fromCharCode(b));
    }
  }
  return out.join('');
}
