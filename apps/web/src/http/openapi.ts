import { applyDecorators, INestApplication, Type } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional, ApiResponse, DocumentBuilder, SwaggerModule } from '@nestjs/swagger';

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
  @ApiPropertyOptional({ description: 'Extra information about the error.' }) details?: unknown;
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

const DESCRIPTIONS: Record<number, string> = {
  400: 'Invalid input (VALIDATION_ERROR with validationErrors by field, or BAD_REQUEST).',
  401: 'Missing, invalid, expired or disabled credentials (UNAUTHORISED).',
  403: 'Authenticated, but the Administrator role is required (FORBIDDEN).',
  404: 'The resource does not exist (NOT_FOUND).',
  409: 'The request conflicts with the current state (CONFLICT).',
  413: 'The body is larger than the limit (PAYLOAD_TOO_LARGE).',
  415: 'The body is not JSON.',
  429: 'Too many requests (RATE_LIMITED); see Retry-After.',
  500: 'Unexpected error (INTERNAL_ERROR) with an errorId.',
  503: 'A dependency is unavailable (SERVICE_UNAVAILABLE).',
};

/** Documents the error responses an endpoint can give, all with the error body. */
export function ApiErrors(...statuses: number[]) {
  return applyDecorators(
    ...[...new Set([...statuses, 429, 500])].map((status) =>
      ApiResponse({ status, description: DESCRIPTIONS[status] ?? 'Error', type: ErrorBodyDto }),
    ),
  );
}

/** A paginated envelope (spec 2.1) of `item` for OpenAPI. */
export function pagedOf<T>(item: Type<T>, name: string): Type<unknown> {
  class Paged {
    @ApiProperty({ type: [item] }) items: T[];
    @ApiProperty() totalCount: number;
    @ApiProperty() page: number;
    @ApiProperty() pageSize: number;
    @ApiProperty() totalPages: number;
    @ApiProperty() hasNextPage: boolean;
    @ApiProperty() hasPreviousPage: boolean;
  }
  Object.defineProperty(Paged, 'name', { value: name });
  return Paged;
}

/** Builds the OpenAPI document and serves it at /api/openapi.json with the reference UI at /api/reference. */
export function setupOpenApi(app: INestApplication, version: string): void {
  const config = new DocumentBuilder()
    .setTitle('Meridian API')
    .setDescription(
      'Meridian keeps a central identity store (the metaverse) consistent with connected systems. ' +
        'Every endpoint except health, version and auth config needs an `X-Api-Key` header or an OIDC bearer access token; ' +
        'administrative endpoints need the Administrator role. Errors use one body shape (ErrorBodyDto).',
    )
    .setVersion(version)
    .addApiKey({ type: 'apiKey', in: 'header', name: 'X-Api-Key', description: 'An API key (mer_…).' }, 'api-key')
    .addBearerAuth(
      { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'An OIDC access token from the configured authority.' },
      'bearer',
    )
    .build();
  const document = SwaggerModule.createDocument(app, config, { extraModels: [ErrorBodyDto] });
  SwaggerModule.setup('api/reference', app, document, {
    jsonDocumentUrl: 'api/openapi.json',
    customSiteTitle: 'Meridian API reference',
    swaggerOptions: { persistAuthorization: true },
  });
}
