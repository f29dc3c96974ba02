// The workspace's denied log fields (gateway-spec: GET /v1/logs/exports/field-restrictions
// "returns effective denied fields for the workspace"; Errors: denied fields are rejected on export
// create and update). Effective = the organisation-wide restriction ∪ the workspace's own, so a
// workspace can only add to what its organisation denies.
import type { EntityManager } from '@mikro-orm/postgresql';
import { LOG_EXPORT_FIELDS, type LogExportField } from '../../domain/log-fields.ts';

type Sql = (q: string, params: unknown[]) => Promise<Record<string, unknown>[]>;
const sqlOf = (em: EntityManager): Sql => (q, params) => em.getConnection().execute(q, params, 'all', em.getTransactionContext());

const ordered = (set: Set<string>): LogExportField[] => LOG_EXPORT_FIELDS.filter((f) => set.has(f));

/** Effective denied fields for each of the given workspaces (key `${organisationId}/${workspaceId}`). */
export async function deniedFieldsFor(em: EntityManager, scopes: { organisationId: string; workspaceId: string | null }[]): Promise<Map<string, LogExportField[]>> {
  const out = new Map<string, LogExportField[]>();
  const orgs = [...new Set(scopes.map((s) => s.organisationId))];
  if (!orgs.length) return out;
  const rows = await sqlOf(em)(
    `select organisation_id, workspace_id, denied_fields from log_field_restriction where organisation_id in (${orgs.map(() => '?').join(',')})`,
    orgs,
  );
  for (const s of scopes) {
    const set = new Set<string>();
    for (const r of rows) {
      if (r.organisation_id !== s.organisationId) continue;
      if (r.workspace_id !== null && r.workspace_id !== s.workspaceId) continue;
      for (const f of (r.denied_fields as string[]) ?? []) set.add(f);
    }
    out.set(`${s.organisationId}/${s.workspaceId}`, ordered(set));
  }
  return out;
}

export async function effectiveDeniedFields(em: EntityManager, organisationId: string, workspaceId: string | null): Promise<LogExportField[]> {
  return (await deniedFieldsFor(em, [{ organisationId, workspaceId }])).get(`${organisationId}/${workspaceId}`) ?? [];
}

/** The rows as stored: the organisation-wide one and the workspace's (each null when unset). */
export async function storedRestrictions(em: EntityManager, organisationId: string, workspaceId: string): Promise<{ organisation: LogExportField[] | null; workspace: LogExportField[] | null }> {
  const rows = await sqlOf(em)(
    `select workspace_id, denied_fields from log_field_restriction where organisation_id = ? and (workspace_id is null or workspace_id = ?)`,
    [organisationId, workspaceId],
  );
  const pick = (ws: string | null) => {
    const r = rows.find((x) => x.workspace_id === ws);
    return r ? ordered(new Set(r.denied_fields as string[])) : null;
  };
  return { organisation: pick(null), workspace: pick(workspaceId) };
}
