import { INestApplication } from '@nestjs/common';
import { ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum';
import { DiscoveryService } from '@nestjs/core';
import { IntIdPipe, UuidPipe } from '@meridian/platform';

type Schema = Record<string, any>;

export interface OpenApiDocument {
  paths: Record<string, Record<string, Schema>>;
  components: { schemas: Record<string, Schema> };
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch'];
const BODY_METHODS = ['put', 'post', 'patch'];

/** What a path id pipe accepts, as a schema. */
const PIPE_SCHEMAS = new Map<unknown, Schema>([
  [UuidPipe, { type: 'string', format: 'uuid' }],
  [IntIdPipe, { type: 'integer', minimum: 1, maximum: 2_147_483_647 }],
]);

/**
 * Numbers that may have a fraction. Every other number in the API is an id, a count, a position or a
 * size, and is documented as an integer (TypeScript's `number` tells the document nothing more).
 */
const FRACTIONAL = new Set(['seconds', 'objectsPerSecond', 'minimum', 'maximum']);

/** Allows null beside a `$ref` or an untyped `oneOf`, in a form OpenAPI 3.0 validators and Redocly accept. */
const NULL_ONLY: Schema = { type: 'object', nullable: true, enum: [null], description: 'No value.' };

/** What each error status means, wherever an operation documents it (always with the error body). */
export const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'Invalid input (VALIDATION_ERROR with validationErrors by field, or BAD_REQUEST). Unknown body fields are rejected, and so is a NUL character anywhere in the request.',
  401: 'Missing, invalid, expired or disabled credentials (UNAUTHORISED).',
  403: 'Authenticated, but the Administrator role is required (FORBIDDEN).',
  404: 'The resource does not exist (NOT_FOUND).',
  409: 'The request conflicts with the current state (CONFLICT).',
  413: 'The body is larger than the limit (PAYLOAD_TOO_LARGE).',
  415: 'The body is not JSON (BAD_REQUEST): send Content-Type application/json.',
  429: 'Too many requests (RATE_LIMITED); retry after Retry-After seconds.',
  500: 'Unexpected error (INTERNAL_ERROR) with an errorId.',
  503: 'A dependency (database, queue or identity provider) is unavailable (SERVICE_UNAVAILABLE); retry after Retry-After seconds.',
};

const errorBody = (status: number) => ({
  description: ERROR_DESCRIPTIONS[status],
  content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorBodyDto' } } },
});

/**
 * The schema of each path parameter that a pipe validates, by operation id (`Controller_method`) and
 * parameter name, read from the route metadata: the pipes are the truth about what a path accepts.
 */
export function parameterSchemas(app: INestApplication): Map<string, Schema> {
  const schemas = new Map<string, Schema>();
  for (const { metatype } of app.get(DiscoveryService, { strict: false }).getControllers()) {
    if (!metatype) continue;
    for (const method of Object.getOwnPropertyNames(metatype.prototype)) {
      const args: Record<string, { data?: unknown; pipes?: unknown[] }> = Reflect.getMetadata(ROUTE_ARGS_METADATA, metatype, method) ?? {};
      for (const [key, arg] of Object.entries(args)) {
        if (Number(key.split(':')[0]) !== RouteParamtypes.PARAM || typeof arg.data !== 'string') continue;
        const schema = (arg.pipes ?? []).map((pipe) => PIPE_SCHEMAS.get(pipe)).find(Boolean);
        if (schema) schemas.set(`${metatype.name}_${method}:${arg.data}`, schema);
      }
    }
  }
  return schemas;
}

/** Makes a number an integer unless its name says it may have a fraction; fixes nullable forms. */
function refineSchema(schema: Schema | undefined, name?: string): void {
  if (!schema || typeof schema !== 'object') return;
  if (schema.type === 'number' && name !== undefined && !FRACTIONAL.has(name)) schema.type = 'integer';
  if (schema.type === 'array' && schema.items?.type === 'number' && name !== undefined && !FRACTIONAL.has(name))
    schema.items.type = 'integer';
  if (schema.nullable === true && Array.isArray(schema.allOf) && schema.allOf.length === 1 && schema.allOf[0].$ref) {
    // `nullable` beside `allOf` does not admit null in OpenAPI 3.0: a $ref'd object schema refuses it.
    schema.oneOf = [schema.allOf[0], NULL_ONLY];
    delete schema.allOf;
    delete schema.type;
    delete schema.nullable;
  }
  if (Array.isArray(schema.oneOf)) {
    if (schema.type === 'object' && schema.oneOf.some((b: Schema) => b.type && b.type !== 'object')) delete schema.type;
    if (schema.nullable === true && schema.type === undefined) {
      delete schema.nullable;
      const typed = schema.oneOf.find((b: Schema) => b.type && !b.$ref);
      if (typed) typed.nullable = true;
      else schema.oneOf.push(NULL_ONLY);
    }
  }
  for (const [property, child] of Object.entries((schema.properties ?? {}) as Record<string, Schema>)) refineSchema(child, property);
  for (const key of ['items', 'additionalProperties'] as const) if (typeof schema[key] === 'object') refineSchema(schema[key]);
  for (const key of ['oneOf', 'anyOf', 'allOf'] as const) for (const branch of schema[key] ?? []) refineSchema(branch);
}

/**
 * What the decorators cannot say: security `[]` on anonymous operations, 400/413/415 wherever a body
 * can be sent, integer and uuid ids, nullable references that really admit null, and request bodies
 * closed to unknown fields (the validation pipe forbids them).
 */
export function refineDocument(document: OpenApiDocument, parameters: Map<string, Schema>): void {
  const requestBodies = new Set<string>();
  for (const item of Object.values(document.paths)) {
    for (const method of METHODS) {
      const operation = item[method];
      if (!operation) continue;
      if (!operation.security?.length) operation.security = [];
      for (const parameter of operation.parameters ?? []) {
        const piped = parameters.get(`${operation.operationId}:${parameter.name}`);
        if (parameter.in === 'path' && piped) parameter.schema = { ...parameter.schema, ...piped };
        refineSchema(parameter.schema, parameter.name);
      }
      if (BODY_METHODS.includes(method)) {
        // The body parser runs before any route: whatever the operation, a body must be JSON and fit the limit
        // (every operation documents 400 already).
        operation.responses['413'] ??= errorBody(413);
        operation.responses['415'] ??= errorBody(415);
      }
      if (operation.requestBody) {
        const ref: string | undefined = operation.requestBody.content?.['application/json']?.schema?.$ref;
        if (ref) requestBodies.add(ref.replace('#/components/schemas/', ''));
      }
      operation.responses = Object.fromEntries(Object.entries(operation.responses).sort(([a], [b]) => a.localeCompare(b)));
    }
  }
  for (const [name, schema] of Object.entries(document.components.schemas)) {
    refineSchema(schema);
    if (requestBodies.has(name) && schema.type === 'object') schema.additionalProperties = false;
  }
}
