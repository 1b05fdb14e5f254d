// Types of scripts/console-build.mjs for the TypeScript that imports it (the console's tests).
/** CONSOLE_BUDGET_BYTES is the console's size budget: JS + CSS, gzipped. */
export declare const CONSOLE_BUDGET_BYTES: number;
/** buildConsole writes dist/console/ and returns the gzipped size of JS + CSS. */
export declare function buildConsole(options?: { outdir?: string; quiet?: boolean }): Promise<number>;
