// Rate-limit and budget counters in Redis (issue 8): one Lua script per hash tag checks every
// counter of the request and takes from all of them only if all allow, on Redis's clock so every
// worker agrees. Rate counters are sliding windows, budgets reserve-then-settle (counter-maths.ts). All tags go out in one pipeline: one round trip per request.
import type { Redis } from 'ioredis';
import { hashTagOf, type LimitAdjustment, type LimitCheck, type LimitStore, type LimitVerdict } from '../domain/limits/limit-store.ts';

// ARGV: mode ('take' | 'adjust'), then 6 per key: kind (r|b), limit, window ms, period end ms,
// amount (take) or delta (adjust), alert threshold (-1: none). Same rules as counter-maths.ts.
const SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local mode = ARGV[1]
local n = #KEYS
local state = {}
local out = {}
local all = true
for i = 1, n do
  local b = 1 + (i - 1) * 6
  local kind = ARGV[b + 1]
  local limit = tonumber(ARGV[b + 2])
  local window = math.max(1, tonumber(ARGV[b + 3]))
  local periodEnd = tonumber(ARGV[b + 4])
  local amount = tonumber(ARGV[b + 5])
  local alertAt = tonumber(ARGV[b + 6])
  if kind == 'r' then
    -- Sliding window: this window's count plus the previous window's, weighted by its overlap.
    local s = redis.call('HMGET', KEYS[i], 'w', 'c', 'p')
    local index = math.floor(now / window)
    local count = 0
    local prev = 0
    local sw = tonumber(s[1])
    if sw == index then
      count = tonumber(s[2]) or 0
      prev = tonumber(s[3]) or 0
    elseif sw == index - 1 then
      prev = tonumber(s[2]) or 0
    end
    local elapsed = now - index * window
    local used = prev * (1 - elapsed / window) + count
    if mode == 'adjust' then
      state[i] = {index, math.max(0, math.min(2 * limit, count + amount)), prev}
    elseif limit <= 0 then
      all = false
      out[i] = {0, '0', tostring(window), tostring(window), 0}
      state[i] = {index, count, prev}
    else
      local take = math.min(amount, limit)
      local ok = used + take <= limit + 1e-9
      local c2 = count
      local u2 = used
      if ok then
        c2 = count + take
        u2 = used + take
      else
        all = false
      end
      local toEnd = window - elapsed
      local retry = 0
      if not ok then
        local need = used + take - limit
        if prev > 0 and prev * (1 - elapsed / window) >= need then
          retry = math.ceil(need * window / prev)
        else
          retry = math.ceil(toEnd + math.max(0, 1 - (limit - take) / math.max(c2, 1e-9)) * window)
        end
      end
      local reset = 0
      if c2 > 0 then reset = toEnd + window elseif prev > 0 then reset = toEnd end
      out[i] = {ok and 1 or 0, tostring(math.max(0, math.floor(limit - u2 + 1e-9))), tostring(math.ceil(reset)), tostring(retry), 0}
      state[i] = {index, c2, prev}
    end
  else
    local s = redis.call('HMGET', KEYS[i], 'u', 'a')
    local used = tonumber(s[1] or '0')
    local resetMs = math.max(0, periodEnd - now)
    if mode == 'adjust' then
      state[i] = math.max(0, used + amount)
    else
      local ok = limit > 0 and used < limit
      local after = used
      if ok then after = used + amount else all = false end
      local alert = 0
      if ok and alertAt >= 0 and used < alertAt and after >= alertAt and not s[2] then alert = 1 end
      local retry = 0
      if not ok then retry = resetMs end
      out[i] = {ok and 1 or 0, tostring(math.max(0, limit - after)), tostring(resetMs), tostring(retry), alert}
      state[i] = after
    end
  end
end
if mode == 'take' and not all then
  for i = 1, n do out[i][5] = 0 end
  return out
end
for i = 1, n do
  local b = 1 + (i - 1) * 6
  if ARGV[b + 1] == 'r' then
    redis.call('HSET', KEYS[i], 'w', tostring(state[i][1]), 'c', tostring(state[i][2]), 'p', tostring(state[i][3]))
    redis.call('PEXPIRE', KEYS[i], math.max(1, tonumber(ARGV[b + 3])) * 2 + 1000)
  elseif mode == 'take' or redis.call('EXISTS', KEYS[i]) == 1 then
    redis.call('HSET', KEYS[i], 'u', tostring(state[i]))
    if mode == 'take' and out[i][5] == 1 then redis.call('HSET', KEYS[i], 'a', '1') end
    redis.call('PEXPIREAT', KEYS[i], tonumber(ARGV[b + 4]) + 60000)
  end
end
return out
`;

type Row = [number, string, string, string, number];

interface LimitCommands {
  gwLimits(numKeys: number, ...args: (string | number)[]): Promise<Row[]>;
}

function args(mode: 'take' | 'adjust', items: { check: LimitCheck; amount: number }[]): (string | number)[] {
  const keys = items.map((i) => i.check.key);
  const argv: (string | number)[] = [mode];
  for (const { check: c, amount } of items) {
    argv.push(c.kind === 'rate' ? 'r' : 'b', c.limit, c.windowMs ?? 1_000, c.periodEndMs ?? 0, amount, c.alertAt ?? -1);
  }
  return [items.length, ...keys, ...argv];
}

export class RedisLimitStore implements LimitStore {
  readonly kind = 'redis' as const;

  constructor(private readonly client: Redis) {
    if (!('gwLimits' in client)) client.defineCommand('gwLimits', { lua: SCRIPT });
  }

  async take(checks: LimitCheck[]): Promise<LimitVerdict[]> {
    if (!checks.length) return [];
    const groups = groupByTag(checks.map((check, index) => ({ check, amount: check.amount, index })));
    const pipeline = this.client.pipeline() as unknown as LimitCommands & { exec(): Promise<[Error | null, unknown][] | null> };
    for (const g of groups) void pipeline.gwLimits(...(args('take', g) as [number, ...(string | number)[]]));
    const results = await pipeline.exec();
    if (!results) throw new Error('redis pipeline aborted');
    const verdicts: LimitVerdict[] = new Array(checks.length);
    const admittedGroups: typeof groups = [];
    groups.forEach((g, gi) => {
      const [err, rows] = results[gi]!;
      if (err) throw err;
      const list = rows as Row[];
      g.forEach((item, j) => {
        const r = list[j]!;
        verdicts[item.index] = { allowed: r[0] === 1, remaining: Number(r[1]), resetMs: Number(r[2]), retryAfterMs: Number(r[3]), alert: r[4] === 1 };
      });
      if (g.length && list[0]?.[0] === 1 && list.every((r) => r[0] === 1)) admittedGroups.push(g);
    });
    if (admittedGroups.length !== groups.length && admittedGroups.length) {
      // Another tag refused: give back what these took (the request is not admitted).
      await this.adjust(admittedGroups.flat().map(({ check }) => ({ check, delta: -check.amount }))).catch(() => {});
      for (const g of admittedGroups) for (const item of g) verdicts[item.index]!.alert = false;
    }
    return verdicts;
  }

  async adjust(adjustments: LimitAdjustment[]): Promise<void> {
    const items = adjustments.filter((a) => a.delta !== 0).map((a, index) => ({ check: a.check, amount: a.delta, index }));
    if (!items.length) return;
    const pipeline = this.client.pipeline() as unknown as LimitCommands & { exec(): Promise<[Error | null, unknown][] | null> };
    for (const g of groupByTag(items)) void pipeline.gwLimits(...(args('adjust', g) as [number, ...(string | number)[]]));
    const results = await pipeline.exec();
    const failed = results?.find(([err]) => err);
    if (failed) throw failed[0];
  }

  async close(): Promise<void> {
    // The client belongs to the worker's RedisStore, which closes it.
  }
}

function groupByTag<T extends { check: LimitCheck }>(items: T[]): T[][] {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const tag = hashTagOf(item.check.key);
    const g = groups.get(tag);
    if (g) g.push(item);
    else groups.set(tag, [item]);
  }
  return [...groups.values()];
}
