import { valueFromASTUntyped } from 'graphql';
import { builder } from '../builder.ts';

builder.scalarType('JSON', {
  description: 'Any JSON value',
  serialize: (v) => v,
  parseValue: (v) => v,
  parseLiteral: (ast) => valueFromASTUntyped(ast),
});

builder.scalarType('DateTime', {
  description: 'ISO-8601 date-time string',
  serialize: (v) => String(v),
  parseValue: (v) => String(v),
});
