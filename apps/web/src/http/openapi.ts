import { applyDecorators, INestApplication, Type } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional, ApiResponse, DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { ERROR_DESCRIPTIONS, OpenApiDocument, parameterSchemas, refineDocument } from './openapi-refine';

/** The error body of every 4xx/5xx (ARCHITECTURE.md §4). */
export class ErrorBodyDto {
  @ApiProperty({
    enum: [
      'VALIDATION_ERROR',
      'BAD_REQUEST',
      'UNAUTHORISED',
      'FORBIDDEN',
      'NOT_FOUND',
      'CONFLICT',
      'PAYLOAD_TOO_LARGE',
      'RATE_LIMITED',
      'SERVICE_UNAVAILABLE',
      'INTERNAL_ERROR',
    ],
  })
  code: string;

  @ApiProperty() message: string;
  @ApiPropertyOptional({
    description:
      'Extra information about the error: any JSON value, its shape depends on the code (e.g. the conflicting ids of a CONFLICT).',
  })
  details?: unknown;
  @ApiPropertyOptional({
    description: 'Field name → messages.',
    type: 'object',
    additionalProperties: { type: 'array', items: { type: 'string' } },
  })
  validationErrors?: Record<string, string[]>;
  @ApiPropertyOptional({ description: 'Present on 5xx responses; the same id is in the web log.' }) errorId?: string;
  @ApiProperty({ format: 'date-time' }) timestamp: string;
  @ApiProperty() path: string;
}

const RETRY_AFTER = {
  'Retry-After': { description: 'Seconds to wait before trying again.', required: true, schema: { type: 'integer', minimum: 0 } },
};

/**
 * Every operation can answer these: a malformed request (a NUL character anywhere in it), rate limits,
 * unexpected errors, and outages of the database or queue.
 */
const ALWAYS = [400, 429, 500, 503];

const errorResponse = (status: number) =>
  ApiResponse({
    status,
    description: ERROR_DESCRIPTIONS[status] ?? 'Error',
    type: ErrorBodyDto,
    ...(status === 429 || status === 503 ? { headers: RETRY_AFTER } : {}),
  });

/** The health probes take no input, but a request with a NUL character anywhere in it is refused all the same. */
export const ApiMalformedRequest = () => errorResponse(400);

/** Documents the error responses an endpoint can give, all with the error body. */
export function ApiErrors(...statuses: number[]) {
  return applyDecorators(...[...new Set([...statuses, ...ALWAYS])].map(errorResponse));
}

/** A paginated envelope (spec 2.1) of `item` for OpenAPI. */
export function pagedOf<T>(item: Type<T>, name: string): Type<unknown> {
  class Paged {
    @ApiProperty({ type: [item] }) items: T[];
    @ApiProperty({ type: 'integer', minimum: 0 }) totalCount: number;
    @ApiProperty({ type: 'integer', minimum: 1 }) page: number;
    @ApiProperty({ type: 'integer', minimum: 1 }) pageSize: number;
    @ApiProperty({ type: 'integer', minimum: 0 }) totalPages: number;
    @ApiProperty() hasNextPage: boolean;
    @ApiProperty() hasPreviousPage: boolean;
  }
  Object.defineProperty(Paged, 'name', { value: name });
  return Paged;
}

/** Tags, in the order the reference shows them. */
export const TAGS: Record<string, string> = {
  Health: 'Liveness, readiness and version (anonymous).',
  Authentication: 'How clients sign in, and who the caller is.',
  'API keys': 'Keys for automation: created, rotated, disabled and deleted by administrators.',
  Roles: 'Roles and their members (metaverse objects).',
  Metaverse: 'The central identity store: object types, attributes, objects and pending deletions.',
  Connectors: 'The connector types Meridian offers and their settings.',
  'Connected systems': 'External identity stores, their schema and their connector space.',
  'Run profiles': 'Imports, synchronisations and exports of a connected system, and running them.',
  'Sync rules': 'How connector space objects flow to and from the metaverse: scoping, mappings, matching and priorities.',
  Expressions: 'The expression language: its functions, and evaluating an expression against sample values.',
  Activities: 'Everything Meridian did or is doing: runs, configuration changes and their progress.',
  Schedules: 'Recurring sequences of run profiles.',
  'Schedule executions': 'Runs of schedules, step by step.',
  History: 'Change history of objects, deleted objects and its retention.',
  Certificates: 'Certificates connectors trust for TLS.',
  'Service settings': 'Settings of the service that administrators can change at run time.',
  Logs: 'The log files of the web, worker and scheduler services.',
  System: 'Diagnostics of the service itself.',
};

/** Builds the OpenAPI document and serves it at /api/openapi.json with the reference UI at /api/reference. */
export function setupOpenApi(app: INestApplication, version: string): void {
  const builder = new DocumentBuilder()
    .setTitle('Meridian API')
    .setDescription(
      'Meridian keeps a central identity store (the metaverse) consistent with connected systems. ' +
        'Every endpoint except health, version and auth config needs an `X-Api-Key` header or an OIDC bearer access token; ' +
        'administrative endpoints need the Administrator role. Errors use one body shape (ErrorBodyDto).\n\n' +
        'Request bodies are JSON (`Content-Type: application/json`, anything else is 415). Fields a body schema does not list are ' +
        'rejected with 400 VALIDATION_ERROR naming them, so a typo never passes silently. ' +
        'A 429 or 503 answer carries `Retry-After` (seconds).',
    )
    .setVersion(version)
    .setLicense('Apache-2.0', 'https://www.apache.org/licenses/LICENSE-2.0')
    .addServer('/', 'This Meridian instance')
    .addApiKey({ type: 'apiKey', in: 'header', name: 'X-Api-Key', description: 'An API key (mer_…).' }, 'api-key')
    .addBearerAuth(
      { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'An OIDC access token from the configured authority.' },
      'bearer',
    );
  for (const [name, description] of Object.entries(TAGS)) builder.addTag(name, description);
  const document = SwaggerModule.createDocument(app, builder.build(), { extraModels: [ErrorBodyDto] });
  refineDocument(document as unknown as OpenApiDocument, parameterSchemas(app));
  // Any JSON value: no type, so a generated client reads it as `unknown` rather than an empty record.
  delete (document.components?.schemas?.ErrorBodyDto as { properties: Record<string, { type?: string }> }).properties.details.type;
  SwaggerModule.setup('api/reference', app, document, {
    jsonDocumentUrl: 'api/openapi.json',
    customSiteTitle: 'Meridian API reference',
    swaggerOptions: { persistAuthorization: true },
  });
}
