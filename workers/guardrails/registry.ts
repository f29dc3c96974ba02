import { jsonKeys, jsonSchema } from './checks/json-checks.ts';
import { addPrefix, regexReplace } from './checks/mutators.ts';
import { pii } from './checks/pii.ts';
import { jwt, log, webhook } from './checks/remote-checks.ts';
import { allowedRequestTypes, modelRules, modelWhitelist, requiredMetadataKeys } from './checks/request-checks.ts';
import { alllowercase, alluppercase, characterCount, contains, containsCode, endsWith, notNull, regexMatch, sentenceCount, validUrls, wordCount } from './checks/text-checks.ts';
import type { CheckFn } from './types.ts';

/** Built-in checks by their full id (`default.<fn>`, as the reference names them). */
const CHECKS = new Map<string, CheckFn>(
  Object.entries({
    regexMatch,
    regexReplace,
    sentenceCount,
    wordCount,
    characterCount,
    jsonSchema,
    jsonKeys,
    contains,
    validUrls,
    containsCode,
    alluppercase,
    alllowercase,
    endsWith,
    notNull,
    modelWhitelist,
    modelwhitelist: modelWhitelist, // the manifest's spelling
    modelRules,
    allowedRequestTypes,
    requiredMetadataKeys,
    jwt,
    webhook,
    log,
    addPrefix,
    pii,
  }).map(([k, fn]) => [`default.${k}`, fn]),
);

/** `fn` alone means `default.fn`. */
export const fullCheckId = (id: string): string => (id.includes('.') ? id : `default.${id}`);

export function findCheck(id: string): CheckFn | undefined {
  return CHECKS.get(fullCheckId(id));
}

export const builtInCheckIds = (): string[] => [...CHECKS.keys()];
