/** Drops fields the caller omitted (GraphQL gives `undefined`), keeping explicit nulls, so services see what was sent. */
export function plain(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(plain);
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined).map(([k, v]) => [k, plain(v)]));
  }
  return value;
}
