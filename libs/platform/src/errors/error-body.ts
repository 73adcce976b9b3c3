import { ErrorCode, ValidationErrors } from '@meridian/domain';

/** The error body of every 4xx/5xx response (ARCHITECTURE.md §4). */
export interface ErrorBody {
  code: ErrorCode | string;
  message: string;
  details?: unknown;
  validationErrors?: ValidationErrors;
  errorId?: string;
  timestamp: string;
  path: string;
}

export const STATUS_BY_CODE: Record<ErrorCode, number> = {
  [ErrorCode.ValidationError]: 400,
  [ErrorCode.BadRequest]: 400,
  [ErrorCode.Unauthorised]: 401,
  [ErrorCode.Forbidden]: 403,
  [ErrorCode.NotFound]: 404,
  [ErrorCode.Conflict]: 409,
  [ErrorCode.PayloadTooLarge]: 413,
  [ErrorCode.RateLimited]: 429,
  [ErrorCode.ServiceUnavailable]: 503,
  [ErrorCode.InternalError]: 500,
};

export const CODE_BY_STATUS: Record<number, ErrorCode> = {
  400: ErrorCode.BadRequest,
  401: ErrorCode.Unauthorised,
  403: ErrorCode.Forbidden,
  404: ErrorCode.NotFound,
  405: ErrorCode.BadRequest,
  409: ErrorCode.Conflict,
  413: ErrorCode.PayloadTooLarge,
  415: ErrorCode.BadRequest,
  422: ErrorCode.ValidationError,
  429: ErrorCode.RateLimited,
  503: ErrorCode.ServiceUnavailable,
};
