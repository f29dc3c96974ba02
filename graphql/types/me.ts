import { OrganisationSchema, WorkspaceSchema } from '../../src/persistence/entities/index.ts';
import type { Actor } from '../../src/services/auth/actor.ts';
import { builder } from '../builder.ts';

const MeRef = builder.objectRef<Actor>('Me').implement({
  description: 'The caller, as identified by its API key.',
  fields: (t) => ({
    api_key_id: t.exposeID('keyId'),
    key_type: t.exposeString('keyType'),
    organisation_id: t.exposeString('organisationId'),
    workspace_id: t.exposeString('workspaceId', { nullable: true }),
    user_id: t.exposeString('userId', { nullable: true }),
    scopes: t.exposeStringList('scopes'),
    organisation_name: t.string({
      resolve: async (a, _, ctx) => (await ctx.em.findOneOrFail(OrganisationSchema, { id: a.organisationId })).name,
    }),
    workspace_slug: t.string({
      nullable: true,
      resolve: async (a, _, ctx) => (a.workspaceId ? (await ctx.em.findOne(WorkspaceSchema, { id: a.workspaceId }))?.slug ?? null : null),
    }),
  }),
});

builder.queryField('me', (t) => t.field({ type: MeRef, resolve: (_, __, ctx) => ctx.actor }));
