/**
 * Settings a family owns. Each family declares its options (ServiceDefinition.options) with the
 * flag that sets it, its help line and how its text is read; the command line builds its help and
 * its validation from these declarations, and the programmatic start() checks a value given in
 * code with the same declaration. Core and the CLI never name a family's setting.
 */

/** OptionError says why an option's value is refused, in words fit for a command line. */
export class OptionError extends Error {
  override readonly name = 'OptionError';
}

/** FamilyOption is one setting of a family: `key` in start() options, `--flag` on the command line. */
export interface FamilyOption<V> {
  /** The property of start() options (and of the values a family reads), e.g. `eventTtlSeconds`. */
  readonly key: string;
  /** The command-line flag without its dashes, e.g. `event-ttl`. */
  readonly flag: string;
  /** The value's placeholder in the help, e.g. `DURATION`. */
  readonly value: string;
  /** The default, as the help shows it. */
  readonly default: string;
  readonly help: string;
  /** parse reads the flag's text, throwing OptionError with the message a user sees. */
  parse(text: string): V;
  /** accepts is true when a value given in code is one this option takes. */
  accepts(value: unknown): value is V;
}

/** FamilyOptionValues are the values given for the families' options, by key; absent means the family's default. */
export type FamilyOptionValues = Readonly<Record<string, unknown>>;

/** optionValue is the value given for `option`, or undefined when none was (the family applies its default). */
export function optionValue<V>(option: FamilyOption<V>, values: FamilyOptionValues | undefined): V | undefined {
  const value = values !== undefined && Object.hasOwn(values, option.key) ? values[option.key] : undefined;
  return value !== undefined && option.accepts(value) ? value : undefined;
}

/**
 * pickOptionValues takes, from start() options, the values of the declared options, refusing one
 * of the wrong type with the words the command line would use for a bad flag value.
 */
export function pickOptionValues(options: readonly FamilyOption<unknown>[], given: Readonly<Record<string, unknown>>): FamilyOptionValues {
  const picked: Record<string, unknown> = {};
  for (const option of options) {
    const value = Object.hasOwn(given, option.key) ? given[option.key] : undefined;
    if (value === undefined) continue;
    if (!option.accepts(value)) throw new OptionError(`${option.key} (--${option.flag}) must be ${option.value}, not ${JSON.stringify(value)}`);
    picked[option.key] = value;
  }
  return picked;
}
