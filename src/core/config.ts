import { readFileSync } from 'node:fs';
import type { TokenGrant } from './auth.ts';
import { commonJs } from './lazy.ts';

/** OperationsMode chooses how fast compute Operations finish. */
export type OperationsMode = 'realistic' | 'instant';

/** FileConfig is what `--config FILE` (YAML or JSON) may hold. */
export interface FileConfig {
  readonly tokens: readonly TokenGrant[];
}

/** ConfigError is a problem in the configuration file, reported at start-up. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/** loadConfigFile reads and strictly checks a configuration file (the YAML parser loads only when one is given). */
export async function loadConfigFile(path: string): Promise<FileConfig> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigError(`cannot read config file ${path}: ${(error as Error).message}`);
  }
  const parseYaml = await loadYamlParser();
  let raw: unknown;
  try {
    raw = parseYaml(text);
  } catch (error) {
    throw new ConfigError(`config file ${path} is not valid YAML or JSON: ${(error as Error).message}`);
  }
  return parseFileConfig(raw ?? {}, path);
}

/** loadYamlParser loads the YAML parser (CommonJS for Node) on first use. */
export async function loadYamlParser(): Promise<(text: string) => unknown> {
  return commonJs(await import('yaml')).parse;
}

/** parseFileConfig validates an already-parsed configuration document. */
export function parseFileConfig(raw: unknown, source = 'config'): FileConfig {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new ConfigError(`${source}: the top level must be a mapping`);
  const unknownKeys = Object.keys(raw).filter((key) => key !== 'tokens');
  if (unknownKeys.length > 0) throw new ConfigError(`${source}: unknown key '${unknownKeys[0]}' (expected: tokens)`);
  const tokensRaw = (raw as { tokens?: unknown }).tokens ?? [];
  if (!Array.isArray(tokensRaw)) throw new ConfigError(`${source}: 'tokens' must be a list`);
  const seen = new Set<string>();
  const tokens = tokensRaw.map((entry: unknown, index): TokenGrant => {
    const where = `${source}: tokens[${index}]`;
    if (typeof entry !== 'object' || entry === null) throw new ConfigError(`${where} must be a mapping`);
    const record = entry as Record<string, unknown>;
    for (const key of Object.keys(record)) {
      if (!['token', 'email', 'scopes', 'permissions', 'apps', 'groups'].includes(key)) throw new ConfigError(`${where}: unknown key '${key}'`);
    }
    const token = record['token'];
    const email = record['email'];
    if (typeof token !== 'string' || token === '') throw new ConfigError(`${where}.token must be a non-empty string`);
    if (typeof email !== 'string' || !email.includes('@')) throw new ConfigError(`${where}.email must be an email address`);
    if (seen.has(token)) throw new ConfigError(`${where}: the token is listed twice`);
    seen.add(token);
    return {
      token,
      email,
      scopes: stringList(record['scopes'], `${where}.scopes`),
      permissions: stringList(record['permissions'], `${where}.permissions`),
      ...(record['groups'] === undefined ? {} : { groups: stringList(record['groups'], `${where}.groups`) }),
      ...(record['apps'] === undefined ? {} : { apps: stringList(record['apps'], `${where}.apps`) }),
    };
  });
  return { tokens };
}

function stringList(value: unknown, where: string): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || value.some((item) => typeof item !== 'string')) throw new ConfigError(`${where} must be a list of strings`);
  return value as string[];
}
