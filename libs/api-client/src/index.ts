import createClient, { type Client, type Middleware } from 'openapi-fetch';
import type { components, paths } from './schema';

export type { components, operations, paths } from './schema';
export type { Middleware, MiddlewareCallbackParams } from 'openapi-fetch';

/** Every schema of the OpenAPI document, by name. */
export type Schemas = components['schemas'];
/** One schema of the OpenAPI document: `Schema<'ActivityDetailDto'>`. */
export type Schema<Name extends keyof Schemas> = Schemas[Name];

/** The body of every 4xx/5xx answer: `code`, `message`, `validationErrors` by field, `errorId` on 5xx, … */
export type ErrorBody = Schemas['ErrorBodyDto'];
export type ErrorCode = ErrorBody['code'];

export type ActivitySummary = Schemas['ActivitySummaryDto'];
export type ActivityDetail = Schemas['ActivityDetailDto'];
export type ExecutionItem = Schemas['ExecutionItemDto'];
export type ApiKey = Schemas['ApiKeyDto'];
export type CreatedApiKey = Schemas['CreatedApiKeyDto'];
export type ConnectorDefinition = Schemas['ConnectorDto'];
export type ConnectedSystem = Schemas['ConnectedSystemDto'];
export type ConnectedSystemSummary = Schemas['ConnectedSystemSummaryDto'];
export type ConnectedSystemObjectType = Schemas['CsObjectTypeDto'];
export type ConnectedSystemAttribute = Schemas['CsAttributeDto'];
export type ConnectorSpaceObject = Schemas['ConnectorSpaceObjectDto'];
export type ConnectorSpaceObjectDetail = Schemas['ConnectorSpaceObjectDetailDto'];
export type RunProfile = Schemas['RunProfileDto'];
export type PendingExport = Schemas['PendingExportDto'];
export type MetaverseObjectType = Schemas['MetaverseObjectTypeDto'];
export type MetaverseAttribute = Schemas['MetaverseAttributeDto'];
export type MetaverseObjectListItem = Schemas['MetaverseObjectListItemDto'];
export type MetaverseObjectDetail = Schemas['MetaverseObjectDetailDto'];
export type PendingDeletion = Schemas['PendingDeletionDto'];
export type SyncRule = Schemas['SyncRuleDto'];
export type SyncRuleDetail = Schemas['SyncRuleDetailDto'];
export type Mapping = Schemas['MappingDto'];
export type MatchingRule = Schemas['MatchingRuleDto'];
export type Schedule = Schemas['ScheduleDto'];
export type ScheduleDetail = Schemas['ScheduleDetailDto'];
export type ScheduleExecutionSummary = Schemas['ExecutionSummaryDto'];
export type ScheduleExecutionDetail = Schemas['ExecutionDetailDto'];
export type ServiceSetting = Schemas['SettingDto'];
export type Role = Schemas['RoleDto'];
export type Certificate = Schemas['CertificateDto'];
export type ConnectorSpaceObjectChange = Schemas['ConnectorSpaceObjectChangeDto'];
export type MetaverseObjectChange = Schemas['MetaverseObjectChangeDto'];
export type VersionInfo = Schemas['VersionDto'];

/** The typed client: `GET`, `POST`, `PUT`, `PATCH` and `DELETE` take a documented path and its parameters and body. */
export type MeridianClient = Client<paths, 'application/json'>;

export interface MeridianClientOptions {
  /** Where the web app answers, e.g. `https://meridian.example.com` (the paths start with `/api/v1`). */
  baseUrl: string;
  /** An API key (`mer_…`), sent as `X-Api-Key`. */
  apiKey?: string;
  /** An OIDC access token, sent as `Authorization: Bearer …`. */
  bearerToken?: string;
  /** The fetch implementation (the global one by default). */
  fetch?: (request: Request) => Promise<Response>;
  /** Headers sent with every request. */
  headers?: Record<string, string>;
  /** Hooks that see every request (`onRequest`) and response (`onResponse`); more can be added with `client.use`. */
  middleware?: Middleware[];
}

/** A client of the Meridian REST API typed by the OpenAPI document (paths, parameters, bodies, responses). */
export function createMeridianClient(options: MeridianClientOptions): MeridianClient {
  const headers: Record<string, string> = { ...options.headers };
  if (options.apiKey !== undefined) headers['X-Api-Key'] = options.apiKey;
  if (options.bearerToken !== undefined) headers.Authorization = `Bearer ${options.bearerToken}`;
  const client = createClient<paths, 'application/json'>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    headers,
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  if (options.middleware?.length) client.use(...options.middleware);
  return client;
}

/** A call answered with an unexpected status: the status, the URL and the error body (when the answer had one). */
export class MeridianApiError extends Error {
  constructor(
    readonly status: number,
    readonly url: string,
    readonly body: ErrorBody | undefined,
  ) {
    super(`${url} answered ${status}${body ? ` ${body.code}: ${body.message}` : ''}`);
    this.name = 'MeridianApiError';
  }
}

/** What every client method resolves to. */
export interface ApiResult<Data, Failure> {
  data?: Data;
  error?: Failure;
  response: Response;
}

/** The error body of an answer, when it has that shape. */
export function errorBodyOf(error: unknown): ErrorBody | undefined {
  return error && typeof error === 'object' && 'code' in error && 'message' in error ? (error as ErrorBody) : undefined;
}

/**
 * The data of a call that succeeded (or answered `expectedStatus`); otherwise throws a MeridianApiError
 * with the status and the error body: `const system = await unwrap(api.GET('/api/v1/…/{id}', …))`.
 */
export async function unwrap<Data, Failure>(
  call: Promise<ApiResult<Data, Failure>> | ApiResult<Data, Failure>,
  expectedStatus?: number,
): Promise<Data> {
  const { data, error, response } = await call;
  const good = expectedStatus === undefined ? response.ok : response.status === expectedStatus;
  if (!good) throw new MeridianApiError(response.status, response.url, errorBodyOf(error));
  return data as Data;
}
