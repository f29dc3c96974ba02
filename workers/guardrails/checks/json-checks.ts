// JSON checks on the answer: the JSON is extracted from the text (code fences included) and
// validated with ajv against JSON Schema draft 2020-12, as the reference validates.
import { Ajv2020 } from 'ajv/dist/2020.js';
import { textOf } from '../text.ts';
import type { CheckFn } from '../types.ts';
import { CheckParamError, inverted, operator, strings } from './params.ts';

const ajv = new Ajv2020({ allErrors: true, strict: false });
const compiled = new Map<string, ReturnType<typeof ajv.compile>>();

/** Every JSON value found in the text: fenced blocks first, then the whole text, then the outermost braces. */
export function extractJson(text: string): unknown[] {
  const out: unknown[] = [];
  const tryParse = (s: string) => {
    try {
      out.push(JSON.parse(s));
      return true;
    } catch {
      return false;
    }
  };
  for (const m of text.matchAll(/```(?:json)?\s*\n?([\s\S]*?)```/g)) tryParse(m[1]!.trim());
  if (!out.length && !tryParse(text.trim())) {
    const start = text.search(/[{[]/);
    const end = Math.max(text.lastIndexOf('}'), text.lastIndexOf(']'));
    if (start >= 0 && end > start) tryParse(text.slice(start, end + 1));
  }
  return out;
}

export const jsonSchema: CheckFn = (ctx, p) => {
  const schema = p.schema;
  if (!schema || typeof schema !== 'object') throw new CheckParamError('schema is required (a JSON Schema object)');
  const id = JSON.stringify(schema);
  let validate = compiled.get(id);
  if (!validate) {
    try {
      validate = ajv.compile(schema as object);
    } catch (err) {
      throw new CheckParamError(`schema is not a valid JSON Schema: ${(err as Error).message}`);
    }
    if (compiled.size > 500) compiled.clear();
    compiled.set(id, validate);
  }
  const candidates = extractJson(textOf(ctx));
  const v = validate;
  const valid = candidates.find((c) => v(c));
  const errors = valid === undefined && candidates.length ? (v(candidates[0]), v.errors ?? []) : [];
  return {
    verdict: inverted(valid !== undefined, p),
    data: valid !== undefined ? { matchedJson: valid } : { explanation: candidates.length ? 'No JSON in the answer matches the schema.' : 'No JSON found in the answer.', validationErrors: errors },
  };
};

export const jsonKeys: CheckFn = (ctx, p) => {
  const keys = strings(p, 'keys');
  const op = operator(p, 'any');
  const objects = extractJson(textOf(ctx)).filter((j): j is Record<string, unknown> => !!j && typeof j === 'object' && !Array.isArray(j));
  const present = new Set(objects.flatMap((o) => Object.keys(o)));
  const foundKeys = keys.filter((k) => present.has(k));
  const missingKeys = keys.filter((k) => !present.has(k));
  const verdict = objects.length > 0 && (op === 'any' ? foundKeys.length > 0 : op === 'all' ? missingKeys.length === 0 : foundKeys.length === 0);
  return { verdict, data: { operator: op, foundKeys, missingKeys } };
};
