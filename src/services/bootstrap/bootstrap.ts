import type { MikroORM } from '@mikro-orm/postgresql';
import { ORGANISATION_KEY_SCOPES } from '../../domain/scopes.ts';
import { OrganisationSchema, UserSchema, WorkspaceSchema } from '../../persistence/entities/index.ts';
import { recordAudit } from '../audit/record-audit.ts';
import { issueKey } from '../api-keys/issue-key.ts';

export interface BootstrapOptions {
  /** Becomes the admin key instead of a random one (GATEWAY_ADMIN_KEY). */
  adminKey?: string | undefined;
  ownerEmail?: string;
}

export interface BootstrapResult {
  created: boolean;
  organisationId: string;
  workspaceId: string;
  /** The raw admin key: only when this call created it. */
  adminKey?: string;
}

const BOOTSTRAP_LOCK = 72_001_002;

/**
 * First start on an empty database: an organisation, its default workspace, an owner and an
 * Admin API key. Replicas starting together serialise on an advisory lock, so it runs once.
 */
export async function bootstrap(orm: MikroORM, opts: BootstrapOptions = {}): Promise<BootstrapResult> {
  const em = orm.em.fork();
  return em.transactional(async (tx) => {
    await tx.getConnection().execute('select pg_advisory_xact_lock(?)', [BOOTSTRAP_LOCK], 'get', tx.getTransactionContext());
    const [existing] = await tx.find(OrganisationSchema, {}, { orderBy: { createdAt: 'asc' }, limit: 1 });
    if (existing) {
      const ws = await tx.findOneOrFail(WorkspaceSchema, { organisationId: existing.id, isDefault: true });
      return { created: false, organisationId: existing.id, workspaceId: ws.id };
    }
    const org = tx.create(OrganisationSchema, { id: crypto.randomUUID(), name: 'Default organisation', slug: 'default' });
    // Scalar foreign keys carry no ordering hints for the unit of work: flush parents first.
    await tx.flush();
    const ws = tx.create(WorkspaceSchema, {
      id: crypto.randomUUID(),
      organisationId: org.id,
      slug: 'ws-default',
      name: 'Default workspace',
      isDefault: true,
    });
    const owner = tx.create(UserSchema, {
      id: crypto.randomUUID(),
      organisationId: org.id,
      email: opts.ownerEmail ?? 'owner@localhost',
      role: 'owner',
    });
    await tx.flush();
    const { entity, secret } = await issueKey(
      tx,
      {
        organisationId: org.id,
        workspaceId: null,
        userId: null,
        type: 'organisation-service',
        name: 'Admin API key',
        description: 'Created at first start',
        scopes: [...ORGANISATION_KEY_SCOPES],
        rateLimits: null,
        usageLimits: null,
        defaults: null,
        alertEmails: null,
        expiresAt: null,
        rotationPolicy: null,
        creationMode: 'bootstrap',
        createdBy: owner.id,
      },
      opts.adminKey,
    );
    recordAudit(tx, null, null, {
      action: 'organisation.bootstrap',
      targetType: 'organisation',
      targetId: org.id,
      details: { organisation_id: org.id, workspace_id: ws.id, owner_user_id: owner.id, admin_api_key_id: entity.id },
    });
    return { created: true, organisationId: org.id, workspaceId: ws.id, adminKey: secret };
  });
}
