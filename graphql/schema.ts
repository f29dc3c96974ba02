import { builder } from './builder.ts';
import './types/scalars.ts';
import './types/error.ts';
import './types/api-key.ts';
import './types/me.ts';
import './types/audit-log.ts';

export const schema = builder.toSchema({ sortSchema: true });
