import request, { Response, Test } from 'supertest';

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** What a request goes to: a supertest agent of an in-process app (`request(app.getHttpServer())`). */
export type RequestAgent = Pick<ReturnType<typeof request>, HttpMethod>;

/** A request to an in-process app that carries the API key; the body is sent only when one is given. */
export function authorisedRequest(http: RequestAgent, apiKey: string, method: HttpMethod, path: string, body?: unknown): Test {
  const req = http[method](path).set('X-Api-Key', apiKey);
  return body === undefined ? req : req.send(body as object);
}

/** The status and parsed body of a response, so one `toEqual` can assert both. */
export function statusAndBody(res: Response): { status: number; body: any } {
  return { status: res.status, body: res.body };
}
