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
import { DeploymentSchema } from './deployment.ts';
import { McpCapabilitySchema, McpIntegrationSchema, McpIntegrationWorkspaceSchema } from './mcp-integration.ts';
import { McpServerCapabilitySchema, McpServerConnectionSchema, McpServerSchema, McpServerUserAccessSchema } from './mcp-server.ts';

export const ENTITIES = [OrganisationSchema, WorkspaceSchema, UserSchema, ApiKeySchema, AuditEventSchema, RequestLogSchema, WorkspaceMemberSchema, InviteSchema, ConfigSchema, ConfigVersionSchema, DeploymentSchema, McpIntegrationSchema, McpIntegrationWorkspaceSchema, McpCapabilitySchema, McpServerSchema, McpServerCapabilitySchema, McpServerUserAccessSchema, McpServerConnectionSchema];
export { ApiKeySchema, AuditEventSchema, ConfigSchema, ConfigVersionSchema, InviteSchema, OrganisationSchema, RequestLogSchema, UserSchema, WorkspaceMemberSchema, WorkspaceSchema };
export { DeploymentSchema, McpCapabilitySchema, McpIntegrationSchema, McpIntegrationWorkspaceSchema, McpServerCapabilitySchema, McpServerConnectionSchema, McpServerSchema, McpServerUserAccessSchema };
