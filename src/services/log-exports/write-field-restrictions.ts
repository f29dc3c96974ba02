// Setting denied log fields. The spec shows only the read (GET /v1/logs/exports/field-restrictions);
// this is its write, at the same path: PUT with `denied_fields` for one workspace (`workspace_id`)
// or, without it, for every workspace of the organisation. It is an organisation policy, so it
// needs organisation_settings.update (an organisation key): a workspace cannot lift its own
// restrictions.
import type { EntityManager } from '@mikro-orm/postgresql';
import { notFound } from '../../domain/errors.ts';
import { parseWith } from '../../domain/validation.ts';
import type { Actor, RequestMeta } from '../auth/actor.ts';
import { authorize } from '../auth/authorize.ts';
import { recordAudit } from '../audit/record-audit.ts';
import { findWorkspace } from '../workspaces/find-workspace.ts';
import { fieldRestrictionsSchema } from './log-export-input.ts';
import { LOG_EXPORT_FIELDS } from '../../domain/log-fields.ts';

export interface SetFieldRestrictions {
  object: 'field-restrictions';
  workspace_id: string | null;
  denied_fields: string[];
}

export async function setFieldRestrictions(em: EntityManager, actor: Actor, meta: RequestMeta, input: unknown): Promise<SetFieldRestrictions> {
  authorize(actor, 'organisation_settings.update');
  const body = parseWith(fieldRestrictionsSchema, input ?? {});
  let workspaceId: string | null = null;
  if (body.workspace_id) {
    const ws = await findWorkspace(em, actor.organisationId, body.workspace_id);
    if (!ws) throw notFound('Workspace', 'workspace_id');
    workspaceId = ws.id;
  }
  const denied = LOG_EXPORT_FIELDS.filter((f) => body.denied_fields.includes(f));
  return em.transactional(async (tx) => {
    const conn = tx.getConnection();
    const ctx = tx.getTransactionContext();
    await conn.execute(
      `insert into log_field_restriction (id, organisation_id, workspace_id, denied_fields, updated_at) values (?, ?, ?, ?::jsonb, now())
       on conflict (organisation_id, coalesce(workspace_id, '00000000-0000-0000-0000-000000000000'::uuid))
       do update set denied_fields = excluded.denied_fields, updated_at = now()`,
      [crypto.randomUUID(), actor.organisationId, workspaceId, JSON.stringify(denied)],
      'run',
      ctx,
    );
    recordAudit(tx, actor, meta, { action: 'log_field_restriction.update', targetType: 'log_field_restriction', targetId: workspaceId, workspaceId, details: { denied_fields: denied } });
    await tx.flush();
    return { object: 'field-restrictions' as const, workspace_id: workspaceId, denied_fields: denied };
  });
}
