/**
 * Google's preconfigured WAF signature tables, as data: for each attack family, the CRS rule ids
 * Cloud Armor lists and the sensitivity of each (docs: waf-rules, cross-checked against the CRS
 * 3.3.2 rule files' paranoia levels in shared/reference/cloud-armor-waf.md §1.3–§1.4). The `-v33`
 * sets are these tables; the unversioned (CRS 3.0) sets are the same tables with the ids Google's
 * 3.0 lists leave out removed (§1.4). Debian's CRS 3.3.4 holds a few attack rules Google lists in
 * no set (921180, 921230, 921421, 921422): matches are filtered through these tables.
 */

/** WafFamily is an attack category, the first word of a set's name and the last of a signature id. */
export type WafFamily =
  | 'sqli'
  | 'xss'
  | 'lfi'
  | 'rfi'
  | 'rce'
  | 'methodenforcement'
  | 'scannerdetection'
  | 'protocolattack'
  | 'php'
  | 'sessionfixation'
  | 'java'
  | 'nodejs';

/** SignatureTable maps a CRS rule id to its sensitivity (1–4; 0 would be opt-in only). */
export type SignatureTable = ReadonlyMap<string, number>;

/** FamilyTables are one family's tables and the CRS file that holds its rules. */
export interface FamilyTables {
  readonly family: WafFamily;
  /** crsFile is the rule file under Debian's /usr/share/modsecurity-crs/rules. */
  readonly crsFile: string;
  readonly v33: SignatureTable;
  /** v30 is the CRS 3.0 set's table, undefined for families Google's 3.0 sets lack (java, nodejs). */
  readonly v30: SignatureTable | undefined;
}

/** levels writes a table from ids grouped by sensitivity: `levels([1, '942100 942140'], [2, '942110'])`. */
function levels(...groups: readonly (readonly [number, string])[]): SignatureTable {
  const table = new Map<string, number>();
  for (const [level, ids] of groups) for (const id of ids.split(/\s+/).filter((word) => word !== '')) table.set(id, level);
  return table;
}

/** without is `table` less some ids (a CRS 3.0 set beside its v33 namesake). */
function without(table: SignatureTable, ids: string, keepLevel?: number): SignatureTable {
  const dropped = new Set(ids.split(/\s+/));
  return new Map([...table].filter(([id, level]) => !dropped.has(id) && (keepLevel === undefined || level <= keepLevel)));
}

const SQLI_V33 = levels(
  [1, '942100 942140 942160 942170 942190 942220 942230 942240 942250 942270 942280 942290 942320 942350 942360 942500'],
  [
    2,
    '942110 942120 942130 942150 942180 942200 942210 942260 942300 942310 942330 942340 942361 942370 942380 942390 942400 942410 942430 942440 942450 942470 942480 942510',
  ],
  [3, '942101 942251 942420 942431 942460 942490 942511'],
  [4, '942421 942432'],
);
const XSS_V33 = levels(
  [
    1,
    '941100 941110 941120 941130 941140 941160 941170 941180 941190 941200 941210 941220 941230 941240 941250 941260 941270 941280 941290 941300 941310 941350 941360 941370',
  ],
  [2, '941101 941150 941320 941330 941340 941380'],
);
const LFI_V33 = levels([1, '930100 930110 930120 930130']);
const RFI_V33 = levels([1, '931100 931110 931120'], [2, '931130']);
const RCE_V33 = levels([1, '932100 932105 932110 932115 932120 932130 932140 932150 932160 932170 932171 932180'], [2, '932200'], [3, '932106 932190']);
const METHOD_V33 = levels([1, '911100']);
const SCANNER_V33 = levels([1, '913100 913110 913120'], [2, '913101 913102']);
const PROTOCOL_V33 = levels([1, '921110 921120 921130 921140 921150 921160 921190 921200'], [2, '921151'], [3, '921170']);
const PHP_V33 = levels([1, '933100 933110 933120 933130 933140 933150 933160 933170 933180 933200 933210'], [2, '933151'], [3, '933111 933131 933161 933190']);
const SESSION_V33 = levels([1, '943100 943110 943120']);
const JAVA_V33 = levels([1, '944100 944110 944120 944130'], [2, '944200 944210 944240 944250'], [3, '944300']);
const NODEJS_V33 = levels([1, '934100']);

/** FAMILIES are every family's tables, in the order Google's waf-rules page lists them. */
export const FAMILIES: readonly FamilyTables[] = [
  {
    family: 'sqli',
    crsFile: 'REQUEST-942-APPLICATION-ATTACK-SQLI.conf',
    v33: SQLI_V33,
    v30: without(SQLI_V33, '942100 942101 942130 942361 942370 942470 942480 942490 942500 942510 942511'),
  },
  { family: 'xss', crsFile: 'REQUEST-941-APPLICATION-ATTACK-XSS.conf', v33: XSS_V33, v30: without(XSS_V33, '941100 941101 941360 941370 941380') },
  { family: 'lfi', crsFile: 'REQUEST-930-APPLICATION-ATTACK-LFI.conf', v33: LFI_V33, v30: LFI_V33 },
  { family: 'rfi', crsFile: 'REQUEST-931-APPLICATION-ATTACK-RFI.conf', v33: RFI_V33, v30: RFI_V33 },
  { family: 'rce', crsFile: 'REQUEST-932-APPLICATION-ATTACK-RCE.conf', v33: RCE_V33, v30: without(RCE_V33, '932180', 1) },
  { family: 'methodenforcement', crsFile: 'REQUEST-911-METHOD-ENFORCEMENT.conf', v33: METHOD_V33, v30: METHOD_V33 },
  { family: 'scannerdetection', crsFile: 'REQUEST-913-SCANNER-DETECTION.conf', v33: SCANNER_V33, v30: SCANNER_V33 },
  {
    family: 'protocolattack',
    crsFile: 'REQUEST-921-PROTOCOL-ATTACK.conf',
    v33: PROTOCOL_V33,
    v30: new Map([...without(PROTOCOL_V33, '921190 921200'), ['921100', 1]]),
  },
  { family: 'php', crsFile: 'REQUEST-933-APPLICATION-ATTACK-PHP.conf', v33: PHP_V33, v30: without(PHP_V33, '933190 933200 933210') },
  { family: 'sessionfixation', crsFile: 'REQUEST-943-APPLICATION-ATTACK-SESSION-FIXATION.conf', v33: SESSION_V33, v30: SESSION_V33 },
  { family: 'java', crsFile: 'REQUEST-944-APPLICATION-ATTACK-JAVA.conf', v33: JAVA_V33, v30: undefined },
  { family: 'nodejs', crsFile: 'REQUEST-934-APPLICATION-ATTACK-NODEJS.conf', v33: NODEJS_V33, v30: undefined },
];

/**
 * REPORTED_AS maps a CRS rule that fires to the Google signature it stands for. CRS 921170 is a
 * `nolog` counter of parameter names; its detection, a repeated name, is CRS 921180, which Google
 * does not list, while Google lists 921170 at sensitivity 3 (reference §1.4; an inference).
 */
export const REPORTED_AS: ReadonlyMap<string, string> = new Map([['921180', '921170']]);
