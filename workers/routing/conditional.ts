// Evaluates the conditional-routing query language (validated at save time by
// src/domain/config/conditional-query.ts) against one request's facts.
import type { ConditionalQuery, FieldCondition, Primitive } from '../../src/domain/config/conditional-query.ts';

export interface RoutingFacts {
  metadata: Record<string, unknown>;
  params: Record<string, unknown>;
  url: { pathname: string };
}

/** `metadata.a.b`, `params.x`, `url.pathname`: any depth of field path. */
export function factAt(facts: RoutingFacts, path: string): unknown {
  let cur: unknown = facts;
  for (const seg of path.split('.')) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[seg];
  }
  return cur;
}

const regexCache = new Map<string, RegExp | null>();
function regex(source: string): RegExp | null {
  let r = regexCache.get(source);
  if (r === undefined) {
    try {
      r = new RegExp(source);
    } catch {
      r = null;
    }
    if (regexCache.size > 1_000) regexCache.clear();
    regexCache.set(source, r);
  }
  return r;
}

const num = (v: unknown): number => (typeof v === 'number' ? v : typeof v === 'string' ? Number.parseFloat(v) : Number.NaN);

function fieldMatches(value: unknown, cond: FieldCondition): boolean {
  if (cond === null || typeof cond !== 'object') return value === cond;
  for (const [op, arg] of Object.entries(cond)) {
    let ok: boolean;
    switch (op) {
      case '$eq':
        ok = value === arg;
        break;
      case '$ne':
        ok = value !== arg;
        break;
      case '$gt':
        ok = num(value) > num(arg);
        break;
      case '$gte':
        ok = num(value) >= num(arg);
        break;
      case '$lt':
        ok = num(value) < num(arg);
        break;
      case '$lte':
        ok = num(value) <= num(arg);
        break;
      case '$in':
        ok = Array.isArray(arg) && (arg as Primitive[]).includes(value as Primitive);
        break;
      case '$nin':
        ok = Array.isArray(arg) && !(arg as Primitive[]).includes(value as Primitive);
        break;
      case '$regex': {
        const r = typeof arg === 'string' ? regex(arg) : null;
        ok = r !== null && value !== undefined && value !== null && r.test(String(value));
        break;
      }
      default:
        ok = false;
    }
    if (!ok) return false;
  }
  return true;
}

/** Every key of the query must hold (an implicit $and). */
export function queryMatches(query: ConditionalQuery, facts: RoutingFacts): boolean {
  for (const [key, cond] of Object.entries(query)) {
    if (cond === undefined) continue;
    if (key === '$and') {
      if (!(cond as ConditionalQuery[]).every((q) => queryMatches(q, facts))) return false;
    } else if (key === '$or') {
      if (!(cond as ConditionalQuery[]).some((q) => queryMatches(q, facts))) return false;
    } else if (!fieldMatches(factAt(facts, key), cond as FieldCondition)) {
      return false;
    }
  }
  return true;
}
