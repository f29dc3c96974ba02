import { builder } from './builder.ts';
import './types/scalars.ts';
import './types/error.ts';
import './types/api-key.ts';
import './types/me.ts';

export const schema = builder.toSchema({ sortSchema: true });
