import { ApiKeySchema } from './api-key.ts';
import { AuditEventSchema } from './audit-event.ts';
import { OrganisationSchema } from './organisation.ts';
import { RequestLogSchema } from './request-log.ts';
import { UserSchema } from './user.ts';
import { InviteSchema } from './invite.ts';
import { WorkspaceMemberSchema } from './workspace-member.ts';
import { WorkspaceSchema } from './workspace.ts';

export const ENTITIES = [OrganisationSchema, WorkspaceSchema, UserSchema, ApiKeySchema, AuditEventSchema, RequestLogSchema, WorkspaceMemberSchema, InviteSchema];
export { ApiKeySchema, AuditEventSchema, InviteSchema, OrganisationSchema, RequestLogSchema, UserSchema, WorkspaceMemberSchema, WorkspaceSchema };
