// The conditional-routing query language (reference gateway "conditionalRouter"): validation only.
// A query is an object whose keys are field paths (`metadata.<...>`, `params.<...>`, `url.pathname`)
// or the logical operators `$and` / `$or`; a field's value is a primitive (equality) or an object of
// comparison operators. Evaluation lives with the router; this file only says whether a query is
// well formed, and where it is not.

export const COMPARISON_OPERATORS = ['$eq', '$ne', '$gt', '$gte', '$lt', '$lte', '$in', '$nin', '$regex'] as const;
export const LOGICAL_OPERATORS = ['$and', '$or'] as const;

export type Primitive = string | number | boolean | null;
export type ComparisonOperator = (typeof COMPARISON_OPERATORS)[number];
export type FieldCondition = Primitive | Partial<Record<ComparisonOperator, Primitive | Primitive[]>>;
export interface ConditionalQuery {
  $and?: ConditionalQuery[];
  $or?: ConditionalQuery[];
  [field: string]: FieldCondition | ConditionalQuery[] | undefined;
}

export interface QueryIssue {
  path: (string | number)[];
  message: string;
}

const SEGMENT = /^[^.\s]+$/;

/** `metadata.<a>[.<b>…]`, `params.<a>[.<b>…]` or exactly `url.pathname`. */
export function isValidFieldPath(key: string): boolean {
  if (key === 'url.pathname') return true;
  const [root, ...rest] = key.split('.');
  if (root !== 'metadata' && root !== 'params') return false;
  return rest.length > 0 && rest.every((s) => SEGMENT.test(s));
}

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

const isPrimitive = (v: unknown): v is Primitive =>
  v === null || typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v));

/** Every problem in `query`, each with its path relative to the query. */
export function queryIssues(query: unknown, path: (string | number)[] = []): QueryIssue[] {
  const issues: QueryIssue[] = [];
  if (!isPlainObject(query)) return [{ path, message: 'a query must be an object' }];
  const keys = Object.keys(query);
  if (keys.length === 0) return [{ path, message: 'a query needs at least one condition' }];
  for (const key of keys) {
    const value = query[key];
    const at = [...path, key];
    if (key === '$and' || key === '$or') {
      if (!Array.isArray(value) || value.length === 0) {
        issues.push({ path: at, message: `${key} takes a non-empty array of queries` });
        continue;
      }
      value.forEach((sub, i) => issues.push(...queryIssues(sub, [...at, i])));
      continue;
    }
    if (key.startsWith('$')) {
      issues.push({ path: at, message: `unknown operator ${key} (expected $and or $or, or a field path)` });
      continue;
    }
    if (!isValidFieldPath(key)) {
      issues.push({ path: at, message: 'a field path must be metadata.<field>, params.<field> or url.pathname' });
      continue;
    }
    issues.push(...fieldIssues(value, at));
  }
  return issues;
}

function fieldIssues(value: unknown, at: (string | number)[]): QueryIssue[] {
  if (isPrimitive(value)) return [];
  if (!isPlainObject(value)) return [{ path: at, message: 'must be a string, number, boolean, null or an operator object' }];
  const ops = Object.keys(value);
  if (ops.length === 0) return [{ path: at, message: 'an operator object needs at least one operator' }];
  const issues: QueryIssue[] = [];
  for (const op of ops) {
    const v = value[op];
    const p = [...at, op];
    switch (op) {
      case '$eq':
      case '$ne':
        if (!isPrimitive(v)) issues.push({ path: p, message: `${op} takes a string, number, boolean or null` });
        break;
      case '$gt':
      case '$gte':
      case '$lt':
      case '$lte':
        if (!((typeof v === 'number' && Number.isFinite(v)) || (typeof v === 'string' && Number.isFinite(Number.parseFloat(v))))) {
          issues.push({ path: p, message: `${op} takes a number` });
        }
        break;
      case '$in':
      case '$nin':
        if (!Array.isArray(v)) issues.push({ path: p, message: `${op} takes an array` });
        else v.forEach((item, i) => { if (!isPrimitive(item)) issues.push({ path: [...p, i], message: 'must be a string, number, boolean or null' }); });
        break;
      case '$regex':
        if (typeof v !== 'string') issues.push({ path: p, message: '$regex takes a string' });
        else {
          try {
            new RegExp(v);
          } catch {
            issues.push({ path: p, message: 'is not a valid regular expression' });
          }
        }
        break;
      default:
        issues.push({ path: p, message: `unknown operator ${op}` });
    }
  }
  return issues;
}
