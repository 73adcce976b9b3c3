const ISO_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** Asserts that a response is the API's error body (ARCHITECTURE.md §4) with this status and code. */
export function expectErrorBody(res: { status: number; body: any }, status: number, code: string): void {
  expect({ status: res.status, code: res.body.code }).toEqual({ status, code });
  expect(typeof res.body.message).toBe('string');
  expect(res.body.timestamp).toMatch(ISO_TIMESTAMP);
  expect(typeof res.body.path).toBe('string');
}
