/** FOGBANK_VERSION is fogbank's version (package.json's; version.test.ts keeps the two equal). */
export const FOGBANK_VERSION = '0.1.0';
