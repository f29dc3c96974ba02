import { ApiKeySchema } from './api-key.ts';
import { AuditEventSchema } from './audit-event.ts';
import { ConfigSchema } from './config.ts';
import { ConfigVersionSchema } from './config-version.ts';
import { OrganisationSchema } from './organisation.ts';
import { RequestLogSchema } from './request-log.ts';
import { UserSchema } from './user.ts';
import { InviteSchema } from './invite.ts';
import { WorkspaceMemberSchema } from './workspace-member.ts';
import { WorkspaceSchema } from './workspace.ts';
import { IntegrationSchema } from './integration.ts';
import { IntegrationModelSchema } from './integration-model.ts';
import { IntegrationWorkspaceSchema } from './integration-workspace.ts';
import { ProviderSchema } from './provider.ts';

export const ENTITIES = [OrganisationSchema, WorkspaceSchema, UserSchema, ApiKeySchema, AuditEventSchema, RequestLogSchema, WorkspaceMemberSchema, InviteSchema, ConfigSchema, ConfigVersionSchema, IntegrationSchema, IntegrationModelSchema, IntegrationWorkspaceSchema, ProviderSchema];
export { ApiKeySchema, AuditEventSchema, ConfigSchema, ConfigVersionSchema, InviteSchema, OrganisationSchema, RequestLogSchema, UserSchema, WorkspaceMemberSchema, WorkspaceSchema };
export { IntegrationSchema, IntegrationModelSchema, IntegrationWorkspaceSchema, ProviderSchema };
