import { DomainError, ErrorCode } from '@meridian/domain';
import type { NextFunction, Request, Response } from 'express';

/** Headers that carry credentials: a NUL there is a bad credential (401), not a bad field (400). */
const CREDENTIAL_HEADERS = new Set(['x-api-key', 'authorization']);
const ENCODED_NUL = /%00/i;
const MESSAGE = 'must not contain NUL (\\u0000) characters';

function hasNul(value: string): boolean {
  return value.includes('\0') || ENCODED_NUL.test(value);
}

/**
 * The first place in a parsed JSON body holding a NUL (in a string or a property name), named as the
 * validation pipe names body fields ("attributes.Emails.1"), or "body" for the body itself.
 */
function nulInJson(root: unknown): string | null {
  const child = (where: string, key: string | number) => (where === '' ? String(key) : `${where}.${key}`);
  // Iterative, so that no nesting depth the body limit allows can overflow the stack.
  const pending: Array<[unknown, string]> = [[root, '']];
  while (pending.length) {
    const [value, where] = pending.pop()!;
    if (typeof value === 'string') {
      if (value.includes('\0')) return where || 'body';
    } else if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) pending.push([value[i], child(where, i)]);
    } else if (value !== null && typeof value === 'object') {
      const entries = Object.entries(value as Record<string, unknown>);
      if (entries.some(([key]) => key.includes('\0'))) return where || 'body';
      for (let i = entries.length - 1; i >= 0; i--) pending.push([entries[i][1], child(where, entries[i][0])]);
    }
  }
  return null;
}

function firstNul(req: Request): { field: string; credential: boolean } | null {
  for (const [name, raw] of Object.entries(req.headers)) {
    const values = Array.isArray(raw) ? raw : raw === undefined ? [] : [raw];
    if (values.some(hasNul)) return { field: `header.${name}`, credential: CREDENTIAL_HEADERS.has(name) };
  }
  const url = req.originalUrl ?? req.url;
  const q = url.indexOf('?');
  const path = q === -1 ? url : url.slice(0, q);
  if (hasNul(path)) return { field: 'path', credential: false };
  if (q !== -1) {
    const query = url.slice(q + 1);
    if (query.includes('\0')) return { field: 'query', credential: false };
    for (const [key, value] of new URLSearchParams(query)) {
      if (key.includes('\0')) return { field: 'query', credential: false };
      if (value.includes('\0')) return { field: key, credential: false };
    }
  }
  const inBody = nulInJson(req.body);
  return inBody ? { field: inBody, credential: false } : null;
}

/**
 * Refuses any request carrying a NUL character (raw or percent-encoded `%00`) in its path, query, headers
 * or JSON body, strings and property names alike: PostgreSQL cannot store it, so it must never reach a
 * query. A NUL in `X-Api-Key` or `Authorization` is an invalid credential (401); anywhere else it is a
 * 400 VALIDATION_ERROR naming where: `path`, `header.<name>`, the query parameter's name, or the body
 * field's path as the validation pipe names it. Registered after the JSON body parser.
 */
export function nulByteMiddleware(req: Request, _res: Response, next: NextFunction): void {
  const found = firstNul(req);
  if (!found) return next();
  if (found.credential) {
    return next(new DomainError(ErrorCode.Unauthorised, 'The credentials are not valid: they contain a NUL character.'));
  }
  next(DomainError.validationMany({ [found.field]: [MESSAGE] }, `The request is not valid: ${found.field} ${MESSAGE}.`));
}
