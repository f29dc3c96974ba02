import { grantableScopes } from '../auth/authorize.ts';
// Rules shared by create, update and rotation of API keys: scopes, the organisation/workspace
// key settings (spec: Rotation rules; Limits: maximum and default expiry, user keys per user),
// and what is stored of rotation policies and usage limits beyond the request fields.
import type { EntityManager } from '@mikro-orm/postgresql';
import { isOrganisationLevel, type ApiKeyType, type UsageLimits } from '../../domain/api-key.ts';
import { DAY_MS, rotationPeriodDays } from '../../domain/api-key-input.ts';
import { AppError, invalidParameter } from '../../domain/errors.ts';
import { roleCeiling } from '../../domain/roles.ts';
import { isKnownScope, isWorkspaceScope, scopesBeyond, WORKSPACE_ONLY_SCOPES } from '../../domain/scopes.ts';
import type { EffectiveKeySettings } from '../../domain/tenancy-settings.ts';
import type { RotationPolicy } from '../../persistence/entities/api-key.ts';
import { UserSchema, WorkspaceMemberSchema } from '../../persistence/entities/index.ts';
import type { Actor } from '../auth/actor.ts';

/** How long the previous secret keeps working after a rotation when neither the request nor the policy says. */
export const DEFAULT_TRANSITION_MS = 24 * 3_600_000;

/** The stored policy: the request fields, `next_rotation_at` always computed when a period is set. */
export type StoredRotationPolicy = RotationPolicy;

/** The stored usage limits: the request fields plus the last reset (`reset_usage: true` on update). */
export interface StoredUsageLimits extends UsageLimits {
  last_reset_at?: string | null;
  /** Usage that the last reset cleared, in the limit's unit. */
  reset_usage?: number | null;
}

const INTERNAL_USAGE_FIELDS = ['last_reset_at', 'reset_usage'] as const;

export function publicUsageLimits(v: StoredUsageLimits | null | undefined): Record<string, unknown> | null {
  if (!v) return null;
  const out: Record<string, unknown> = { ...v };
  for (const f of INTERNAL_USAGE_FIELDS) delete out[f];
  return out;
}

export function publicRotationPolicy(v: StoredRotationPolicy | null | undefined): Record<string, unknown> | null {
  return v ? { ...v } : null;
}

/** Scopes of a key must be known, fit its level, and stay within the caller's and the user's role (spec, Authentication 5). */
export function checkKeyScopes(actor: Actor, type: ApiKeyType, requested: string[], userCeiling: readonly string[] | null): string[] {
  const workspaceLevel = !isOrganisationLevel(type);
  requested.forEach((s, i) => {
    if (!isKnownScope(s)) throw invalidParameter(`scopes[${i}]`, `Unknown scope: ${s}`);
    if (workspaceLevel && !isWorkspaceScope(s)) throw invalidParameter(`scopes[${i}]`, `${s} is an organisation scope and cannot be given to a workspace key`);
    if (!workspaceLevel && WORKSPACE_ONLY_SCOPES.includes(s)) throw invalidParameter(`scopes[${i}]`, `${s} is for workspace keys only`);
  });
  const beyond = scopesBeyond(requested, grantableScopes(actor));
  if (beyond.length) {
    throw new AppError(403, 'permission_error', 'scope_exceeds_creator', `Cannot grant scopes the creating key does not hold: ${beyond.join(', ')}`, 'scopes');
  }
  const beyondRole = userCeiling ? scopesBeyond(requested, userCeiling) : [];
  if (beyondRole.length) {
    throw new AppError(403, 'permission_error', 'scope_exceeds_role', `The user's role does not allow: ${beyondRole.join(', ')}`, 'scopes');
  }
  return [...new Set(requested)];
}

/** What a user key's user may hold now (their organisation role and workspace role). */
export async function userScopeCeiling(em: EntityManager, organisationId: string, userId: string, workspaceId: string | null): Promise<readonly string[]> {
  const user = await em.findOne(UserSchema, { id: userId, organisationId });
  if (!user) return [];
  const membership = workspaceId ? await em.findOne(WorkspaceMemberSchema, { workspaceId, userId }) : null;
  return roleCeiling(user.role, membership?.role ?? null);
}

/** Settings may hold weekly/monthly when written without the schema; they mean 7 and 30 days. */
export function enforcedRotationDays(settings: EffectiveKeySettings, type: ApiKeyType): number | null {
  if (type !== 'workspace-user' && type !== 'organisation-user') return null;
  const v = settings.rotationPeriodDays as number | string | null;
  if (v === 'weekly') return 7;
  if (v === 'monthly') return 30;
  return typeof v === 'number' ? v : null;
}

const plusDays = (now: Date, days: number): Date => new Date(now.getTime() + days * DAY_MS);

/**
 * The expiry to store. Create: absent or null takes the default expiry (else the maximum) when
 * one is set. Update: absent leaves it; null means "never" and is refused under a maximum.
 * Returns undefined for "leave unchanged".
 */
export function settleExpiry(input: string | null | undefined, settings: EffectiveKeySettings, mode: 'create' | 'update', now = new Date()): Date | null | undefined {
  const max = settings.maxExpiryDays;
  if (input == null) {
    if (mode === 'update' && input === undefined) return undefined;
    if (mode === 'create') {
      const days = settings.defaultExpiryDays ?? max;
      return days != null ? plusDays(now, Math.min(days, max ?? days)) : null;
    }
    if (max != null) throw invalidParameter('expires_at', `expires_at: keys here must expire within ${max} days; it cannot be removed`);
    return null;
  }
  const at = new Date(input);
  if (max != null && at.getTime() > plusDays(now, max).getTime()) {
    throw invalidParameter('expires_at', `expires_at: must not be more than ${max} days ahead (organisation or workspace setting)`);
  }
  return at;
}

type PolicyInput = {
  rotation_period?: 'weekly' | 'monthly' | null;
  rotation_period_days?: number | null;
  next_rotation_at?: string | null;
  key_transition_period_ms?: number | null;
};

function compact(p: StoredRotationPolicy): StoredRotationPolicy {
  return Object.fromEntries(Object.entries(p).filter(([, v]) => v != null)) as StoredRotationPolicy;
}

/**
 * The rotation policy to store (spec, Rotation rules). Under an enforced cadence (user keys):
 * a policy must match it (a policy without a period gets it), a missing one on create gets the
 * enforced one, it cannot be removed, and next_rotation_at cannot be set by hand on update.
 * next_rotation_at is computed from the period when not given (kept when the cadence is
 * unchanged). Returns undefined for "leave unchanged".
 */
export function settleRotationPolicy(
  input: PolicyInput | null | undefined,
  existing: StoredRotationPolicy | null,
  enforcedDays: number | null,
  mode: 'create' | 'update',
  now = new Date(),
): StoredRotationPolicy | null | undefined {
  if (input == null) {
    if (mode === 'update' && input === undefined) return undefined;
    if (enforcedDays == null) return null;
    if (mode === 'update') {
      throw invalidParameter('rotation_policy', `rotation_policy: rotation every ${enforcedDays} days is enforced for user keys here; the policy cannot be removed`);
    }
    return { rotation_period_days: enforcedDays, next_rotation_at: plusDays(now, enforcedDays).toISOString() };
  }
  let days = rotationPeriodDays(input);
  const policy: StoredRotationPolicy = { ...input };
  if (enforcedDays != null) {
    if (mode === 'update' && input.next_rotation_at != null) {
      throw invalidParameter('rotation_policy.next_rotation_at', 'rotation_policy.next_rotation_at: rotation is enforced by the organisation or workspace; it cannot be set by hand');
    }
    if (days == null) {
      policy.rotation_period_days = enforcedDays;
      days = enforcedDays;
    } else if (days !== enforcedDays) {
      const param = input.rotation_period != null ? 'rotation_policy.rotation_period' : 'rotation_policy.rotation_period_days';
      throw invalidParameter(param, `${param}: must match the enforced rotation cadence of ${enforcedDays} days`);
    }
    if (input.key_transition_period_ms != null && input.key_transition_period_ms >= days * DAY_MS) {
      throw invalidParameter('rotation_policy.key_transition_period_ms', 'rotation_policy.key_transition_period_ms: must be shorter than the rotation period');
    }
  }
  if (policy.next_rotation_at == null && days != null) {
    const sameCadence = existing != null && rotationPeriodDays(existing) === days && existing.next_rotation_at != null;
    policy.next_rotation_at = sameCadence ? existing.next_rotation_at! : plusDays(now, days).toISOString();
  }
  return compact(policy);
}

/** The policy after a rotation at `now`: the next rotation one period on. */
export function policyAfterRotation(p: StoredRotationPolicy | null, now: Date): StoredRotationPolicy | null {
  if (!p) return null;
  const days = rotationPeriodDays(p);
  let next = p.next_rotation_at ?? null;
  if (days != null) next = plusDays(now, days).toISOString();
  else if (next != null && Date.parse(next) <= now.getTime()) next = null; // a one-off rotation that has now happened
  return compact({ ...p, next_rotation_at: next });
}

/** The usage limits to store on update: the new fields, keeping the last reset. */
export function settleUsageLimits(input: UsageLimits | null | undefined, existing: StoredUsageLimits | null): StoredUsageLimits | null | undefined {
  if (input === undefined) return undefined;
  if (input === null) return null;
  const kept: StoredUsageLimits = {};
  if (existing?.last_reset_at) kept.last_reset_at = existing.last_reset_at;
  if (existing?.reset_usage != null) kept.reset_usage = existing.reset_usage;
  return { ...input, ...kept };
}
