/**
 * Google's signature tables against the rule files Debian installs: every listed signature is a
 * rule of its family's CRS file at the paranoia level Google gives as its sensitivity (levels read
 * from the files' `TX:EXECUTING_PARANOIA_LEVEL "@lt N"` markers), the counts per level are those of
 * Google's waf-rules page, and the only attack rules of the files Google lists in no set are the
 * ones the reference names (921180 is reported as 921170).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { CRS_RULES_DIRECTORY } from './crs-files.ts';
import { FAMILIES, REPORTED_AS } from './signatures.ts';

/** levelsOf reads a CRS file's rule ids and the paranoia level each sits at (0 before the first marker). */
function levelsOf(file: string): Map<string, number> {
  const text = readFileSync(`${CRS_RULES_DIRECTORY}/${file}`, 'utf8');
  const levels = new Map<string, number>();
  let level = 0;
  for (const line of text.split('\n')) {
    const marker = /^SecRule TX:EXECUTING_PARANOIA_LEVEL "@lt (\d)"/.exec(line);
    if (marker !== null) level = Number(marker[1]);
    const id = /^\s*"?id:(\d{6})/.exec(line)?.[1];
    if (id !== undefined && marker === null && !levels.has(id)) levels.set(id, level);
  }
  return levels;
}

const counts = (table: ReadonlyMap<string, number>): number[] => [1, 2, 3, 4].map((level) => [...table.values()].filter((l) => l === level).length);

test('the v33 counts per sensitivity are those of Google’s waf-rules page', () => {
  const byFamily = Object.fromEntries(FAMILIES.map((family) => [family.family, counts(family.v33)]));
  assert.deepEqual(byFamily, {
    sqli: [16, 24, 7, 2],
    xss: [24, 6, 0, 0],
    lfi: [4, 0, 0, 0],
    rfi: [3, 1, 0, 0],
    rce: [12, 1, 2, 0],
    methodenforcement: [1, 0, 0, 0],
    scannerdetection: [3, 2, 0, 0],
    protocolattack: [8, 1, 1, 0],
    php: [11, 1, 4, 0],
    sessionfixation: [3, 0, 0, 0],
    java: [4, 4, 1, 0],
    nodejs: [1, 0, 0, 0],
  });
  const total = FAMILIES.reduce((sum, family) => sum + family.v33.size, 0);
  assert.equal(total, 147);
});

test('every v33 signature is a rule of its CRS file at the paranoia level of its sensitivity', () => {
  for (const family of FAMILIES) {
    const levels = levelsOf(family.crsFile);
    for (const [id, sensitivity] of family.v33) {
      assert.equal(levels.get(id), sensitivity, `${family.family} ${id}`);
    }
  }
});

test('the attack rules Google lists in no set are only 921180 (reported as 921170), 921230, 921421 and 921422', () => {
  const unlisted: string[] = [];
  for (const family of FAMILIES) {
    for (const [id, level] of levelsOf(family.crsFile)) {
      // x011–x018 are the paranoia markers themselves; 9xx1xx and above are the attack rules.
      if (level === 0 || Number(id.slice(3)) < 100) continue;
      if (!family.v33.has(id)) unlisted.push(id);
    }
  }
  assert.deepEqual(unlisted.sort(), ['921180', '921230', '921421', '921422']);
  assert.equal(REPORTED_AS.get('921180'), '921170');
});

test('the CRS 3.0 tables are their v33 namesakes less what Google’s 3.0 lists lack', () => {
  const sqli = FAMILIES.find((family) => family.family === 'sqli');
  assert.equal(sqli?.v30?.has('942100'), false);
  assert.equal(sqli?.v30?.get('942110'), 2);
  const rce = FAMILIES.find((family) => family.family === 'rce');
  assert.deepEqual(counts(rce?.v30 ?? new Map()), [11, 0, 0, 0]);
  const protocol = FAMILIES.find((family) => family.family === 'protocolattack');
  assert.equal(protocol?.v30?.get('921100'), 1);
  assert.equal(protocol?.v30?.has('921190'), false);
  assert.equal(FAMILIES.find((family) => family.family === 'java')?.v30, undefined);
});
