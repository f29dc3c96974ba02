import type { EntityManager } from '@mikro-orm/postgresql';
import { isUserKey } from '../../domain/api-key.ts';
import { updateApiKeySchema } from '../../domain/api-key-input.ts';
import { parseWith } from '../../domain/validation.ts';
import type { Actor, RequestMeta } from '../auth/actor.ts';
import { recordAudit } from '../audit/record-audit.ts';
import { loadKeySettings } from '../settings/key-settings.ts';
import { toApiKeyViews, type ApiKeyView } from './api-key-view.ts';
import { currentUsageFor } from './current-usage.ts';
import { findKeyForChange } from './find-key.ts';
import {
  checkKeyScopes,
  enforcedRotationDays,
  settleExpiry,
  settleRotationPolicy,
  settleUsageLimits,
  userScopeCeiling,
  type StoredRotationPolicy,
  type StoredUsageLimits,
} from './key-rules.ts';

/**
 * `PUT /api-keys/{id}` (control-plane-schemas 2.1): every field optional, type and user_id
 * immutable, scopes under the same rules as on create, the organisation/workspace key settings
 * enforced, `reset_usage` zeroes the usage count and re-activates an exhausted key. One audit
 * event in the same transaction. Answers the updated key.
 */
export async function updateApiKey(em: EntityManager, actor: Actor, meta: RequestMeta, id: string, rawInput: unknown): Promise<ApiKeyView> {
  const input = parseWith(updateApiKeySchema, rawInput);
  const key = await em.transactional(async (tx) => {
    const key = await findKeyForChange(tx, actor, id, 'update');
    const now = new Date();
    const workspaceId = key.workspaceId ?? null;

    let scopes: string[] | undefined;
    if (input.scopes !== undefined) {
      const ceiling = isUserKey(key.type) && key.userId ? await userScopeCeiling(tx, key.organisationId, key.userId, workspaceId) : null;
      scopes = checkKeyScopes(actor, key.type, input.scopes, ceiling);
    }

    const settings = await loadKeySettings(tx, key.organisationId, workspaceId);
    const expiresAt = settleExpiry(input.expires_at, settings, 'update', now);
    const existingPolicy = (key.rotationPolicy as StoredRotationPolicy | null) ?? null;
    const rotationPolicy = settleRotationPolicy(input.rotation_policy, existingPolicy, enforcedRotationDays(settings, key.type), 'update', now);
    const existingUsage = (key.usageLimits as StoredUsageLimits | null) ?? null;
    let usageLimits = settleUsageLimits(input.usage_limits, existingUsage);

    let reset: { last_reset_at: string; reset_usage: number } | null = null;
    if (input.reset_usage === true) {
      const limits = usageLimits === undefined ? existingUsage : usageLimits;
      const before = limits ? (await currentUsageFor(tx, [key], now)).get(key.id) : null;
      reset = { last_reset_at: now.toISOString(), reset_usage: before?.used ?? 0 };
      if (limits) usageLimits = { ...limits, ...reset };
      if (key.status === 'exhausted') key.status = 'active';
    }

    if (input.name !== undefined) key.name = input.name;
    if (input.description !== undefined) key.description = input.description;
    if (input.rate_limits !== undefined) key.rateLimits = input.rate_limits;
    if (usageLimits !== undefined) key.usageLimits = usageLimits;
    if (scopes !== undefined) key.scopes = scopes;
    if (input.defaults !== undefined) key.defaults = input.defaults;
    if (input.alert_emails !== undefined) key.alertEmails = input.alert_emails;
    if (expiresAt !== undefined) key.expiresAt = expiresAt;
    if (rotationPolicy !== undefined) key.rotationPolicy = rotationPolicy;
    // Touch the row even when nothing else changed, so the revision moves and workers refetch.
    key.updatedAt = now;

    recordAudit(tx, actor, meta, {
      action: 'api_key.update',
      targetType: 'api_key',
      targetId: key.id,
      workspaceId,
      details: {
        type: key.type,
        ...input,
        ...(scopes !== undefined ? { scopes } : {}),
        ...(expiresAt !== undefined ? { expires_at: expiresAt?.toISOString() ?? null } : {}),
        ...(rotationPolicy !== undefined ? { rotation_policy: rotationPolicy } : {}),
        ...(reset ? { usage_reset: reset } : {}),
      },
    });
    return key;
  });
  const [view] = await toApiKeyViews(em, [key]);
  return view!;
}
