import { builder } from './builder.ts';
import './types/scalars.ts';
import './types/error.ts';
import './types/api-key.ts';
import './types/me.ts';
import './types/workspace.ts';
import './types/workspace-member.ts';
import './types/organisation.ts';
import './types/audit-log.ts';
import './types/user.ts';
import './types/invite.ts';
import './types/config.ts';
import './types/request-log.ts';
import './types/log-export.ts';
import './types/feedback.ts';
import './types/analytics.ts';

export const schema = builder.toSchema({ sortSchema: true });
