import { createMeridianClient, MeridianClient, Middleware } from '@meridian/api-client';
import { OpenApiValidator } from '@meridian/testing';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The document the client was generated from; apps/web's drift test keeps it equal to the one the web
 * process serves, so checking answers against it checks them against the served document.
 */
const validator = new OpenApiValidator(
  JSON.parse(readFileSync(join(__dirname, '..', '..', '..', 'libs', 'api-client', 'openapi.json'), 'utf8')),
  {
    closedObjects: true,
  },
);
const violations: string[] = [];

/**
 * Checks one answer of a web process against the document; the spec fails at its end when one broke it.
 * The client below does it for every call; a spec that calls the API with fetch does it itself.
 */
export async function checkAnswer(method: string, url: string, response: Response): Promise<void> {
  const { pathname } = new URL(url);
  if (!pathname.startsWith('/api/v1/')) return;
  const contentType = response.headers.get('content-type') ?? undefined;
  const text = await response.clone().text();
  let body: unknown = text === '' ? undefined : text;
  if (text !== '' && /json/.test(contentType ?? '')) body = JSON.parse(text);
  const headers = Object.fromEntries([...response.headers.entries()]);
  violations.push(...validator.validate({ method, path: pathname, status: response.status, contentType, headers, body }));
}

const conformance: Middleware = {
  async onResponse({ request, response }) {
    await checkAnswer(request.method, request.url, response);
    return undefined;
  },
};

afterAll(() => {
  if (violations.length) throw new Error(`Responses outside the OpenAPI document:\n${[...new Set(violations)].join('\n')}`);
});

/**
 * The API client of the end-to-end tests: every call to a web process goes through one made here, and
 * every answer is checked against the OpenAPI document (a spec fails when one broke it).
 */
export function apiClient(baseUrl: string, apiKey: string): MeridianClient {
  return createMeridianClient({ baseUrl, apiKey, middleware: [conformance] });
}
