/**
 * checkRegex validates a regular expression literal given to `matches()` the way the service
 * does: RE2 syntax (no lookaround, no backreferences) and no capturing groups. It returns the
 * problem in the real service's words (`Invalid regular expression: P, Capture Groups are not
 * allowed.`), or undefined when the pattern is acceptable. JavaScript's engine compiles the
 * pattern after RE2-only syntax is translated, to catch unbalanced groups, bad repetitions and
 * the like.
 */
export function checkRegex(pattern: string): string | undefined {
  const problem = re2Problem(pattern) ?? compileProblem(pattern);
  return problem === undefined ? undefined : `Invalid regular expression: ${pattern}, ${problem}`;
}

const UNSUPPORTED_GROUPS = ['(?=', '(?!', '(?<=', '(?<!'];

/** re2Problem walks the pattern outside character classes looking for what RE2 rejects or the service forbids. */
function re2Problem(pattern: string): string | undefined {
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\') {
      const next = pattern[i + 1] ?? '';
      if (!inClass && /[1-9]/.test(next)) return `invalid escape sequence: \\${next}.`;
      i++;
      continue;
    }
    if (inClass) {
      if (c === ']') inClass = false;
      continue;
    }
    if (c === '[') {
      inClass = true;
      // A `]` right after `[` or `[^` is a literal member of the class.
      if (pattern[i + 1] === '^') i++;
      if (pattern[i + 1] === ']') i++;
      continue;
    }
    if (c !== '(') continue;
    const rest = pattern.slice(i);
    const lookaround = UNSUPPORTED_GROUPS.find((opening) => rest.startsWith(opening));
    if (lookaround !== undefined) return `invalid or unsupported Perl syntax: ${lookaround}.`;
    if (!rest.startsWith('(?') || rest.startsWith('(?P<') || /^\(\?<[A-Za-z_]/.test(rest)) return 'Capture Groups are not allowed.';
  }
  return undefined;
}

/** compileProblem compiles the pattern with JavaScript's engine after translating RE2-only syntax. */
function compileProblem(pattern: string): string | undefined {
  const translated = pattern
    .replace(/^\(\?[imsU]+\)/, '')
    .replace(/\(\?[imsU-]+:/g, '(?:')
    .replace(/\\A/g, '^')
    .replace(/\\z/g, '$');
  try {
    new RegExp(translated);
    return undefined;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const reason = message.slice(message.lastIndexOf(': ') + 2);
    return `${reason.charAt(0).toLowerCase()}${reason.slice(1)}.`;
  }
}
