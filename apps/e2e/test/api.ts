import { createMeridianClient, MeridianClient } from '@meridian/api-client';

/**
 * The API client of the end-to-end tests: every call to a web process goes through one made here, so a
 * check of every answer (against the OpenAPI document, say) can be attached in one place.
 */
export function apiClient(baseUrl: string, apiKey: string): MeridianClient {
  return createMeridianClient({ baseUrl, apiKey });
}
