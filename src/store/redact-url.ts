// Apart from the PostgreSQL backend, so the start-up line can name a database without loading its driver.

/** redactUrl hides the password of a connection URL, for messages and logs. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== '') parsed.password = '***';
    return parsed.toString();
  } catch {
    return url.replace(/:[^:@/]*@/, ':***@');
  }
}
