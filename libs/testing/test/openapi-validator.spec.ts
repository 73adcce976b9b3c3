import { OpenApiValidator } from '../src/openapi-validator';

const json = (schema: object) => ({ content: { 'application/json': { schema } } });

const document = {
  openapi: '3.0.0',
  paths: {
    '/api/v1/things/{id}': {
      get: {
        responses: {
          '200': json({ $ref: '#/components/schemas/Thing' }),
          '404': json({ $ref: '#/components/schemas/Error' }),
          '503': {
            ...json({ $ref: '#/components/schemas/Error' }),
            headers: { 'Retry-After': { required: true, schema: { type: 'integer' } } },
          },
        },
      },
      delete: { responses: { '204': { description: 'Gone' } } },
    },
    '/api/v1/things/order': { put: { responses: { '200': json({ type: 'array', items: { type: 'integer' } }) } } },
    '/api/v1/things/{id}/pem': {
      get: { responses: { '200': { content: { 'application/x-pem-file': { schema: { type: 'string' } } } } } },
    },
  },
  components: {
    schemas: {
      Thing: {
        type: 'object',
        required: ['id', 'size', 'owner'],
        properties: {
          id: { type: 'string', format: 'uuid' },
          size: { type: 'integer' },
          owner: { oneOf: [{ $ref: '#/components/schemas/Owner' }, { type: 'object', nullable: true, enum: [null] }] },
          note: { type: 'string', nullable: true },
          kind: { type: 'string', enum: ['a', 'b'], nullable: true },
          loose: { nullable: true, allOf: [{ $ref: '#/components/schemas/Owner' }] },
        },
      },
      Owner: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } },
      Error: { type: 'object', required: ['code'], properties: { code: { type: 'string' } } },
    },
  },
};

const ID = '0190d4c2-7b1e-7c3a-9f00-000000000001';
const thing = { id: ID, size: 3, owner: { name: 'Ada' }, note: null, kind: null };

describe('OpenApiValidator', () => {
  const validator = new OpenApiValidator(document);
  const get = (status: number, body: unknown, contentType = 'application/json; charset=utf-8', headers = {}) =>
    validator.validate({ method: 'GET', path: `/api/v1/things/${ID}?x=1`, status, contentType, body, headers });

  it('accepts a response the document describes, nullable fields and a null-or-reference included', () => {
    expect(get(200, thing)).toEqual([]);
    expect(get(200, { ...thing, owner: null })).toEqual([]);
    expect(validator.validate({ method: 'DELETE', path: `/api/v1/things/${ID}`, status: 204 })).toEqual([]);
  });

  it('refuses a body that breaks the schema: types, formats, required fields, integers', () => {
    expect(get(200, { ...thing, id: 'not-a-uuid' })).toEqual([expect.stringContaining('body/id must match format "uuid"')]);
    expect(get(200, { ...thing, size: 1.5 })).toEqual([expect.stringContaining('body/size must be integer')]);
    expect(get(200, { id: ID, size: 1, note: null })).toEqual([expect.stringContaining("must have required property 'owner'")]);
    expect(get(200, { ...thing, kind: 'c' }).join()).toContain('body/kind must be equal to one of the allowed values');
  });

  it('reads nullable as OpenAPI 3.0 does: beside allOf it does not admit null', () => {
    expect(get(200, { ...thing, loose: null }).join()).toContain('body/loose must be object');
  });

  it('refuses an undocumented status, an undocumented content type, a missing required header and an unknown operation', () => {
    expect(get(418, {})).toEqual([expect.stringContaining('status 418 is not documented')]);
    expect(get(404, 'Not found', 'text/html')).toEqual([expect.stringContaining('content type "text/html" is not documented')]);
    expect(get(503, { code: 'SERVICE_UNAVAILABLE' })).toEqual([expect.stringContaining('header Retry-After is missing')]);
    expect(get(503, { code: 'SERVICE_UNAVAILABLE' }, 'application/json', { 'retry-after': '5' })).toEqual([]);
    expect(validator.validate({ method: 'POST', path: '/api/v1/things', status: 201 })).toEqual([
      expect.stringContaining('no such operation'),
    ]);
  });

  it('matches a literal path segment before a parameter, and checks non-JSON bodies by content type', () => {
    expect(validator.operationFor('PUT', '/api/v1/things/order')?.template).toBe('/api/v1/things/order');
    expect(
      validator.validate({ method: 'PUT', path: '/api/v1/things/order', status: 200, contentType: 'application/json', body: [1, 2] }),
    ).toEqual([]);
    const pem = { method: 'GET', path: `/api/v1/things/${ID}/pem`, status: 200, body: '-----BEGIN CERTIFICATE-----' };
    expect(validator.validate({ ...pem, contentType: 'application/x-pem-file' })).toEqual([]);
    expect(validator.validate({ ...pem, contentType: 'application/json' })).toEqual([expect.stringContaining('is not documented')]);
  });

  it('with closed objects, refuses a field the schema does not list', () => {
    expect(get(200, { ...thing, extra: 1 })).toEqual([]);
    const closed = new OpenApiValidator(document, { closedObjects: true });
    const sample = { method: 'GET', path: `/api/v1/things/${ID}`, status: 200, contentType: 'application/json' };
    expect(closed.validate({ ...sample, body: thing })).toEqual([]);
    expect(closed.validate({ ...sample, body: { ...thing, extra: 1 } })).toEqual([
      expect.stringContaining('must NOT have additional properties'),
    ]);
    expect(closed.validate({ ...sample, body: { ...thing, owner: { name: 'Ada', age: 36 } } }).join()).toContain('body/owner');
  });

  it('checks a value against a named component', () => {
    expect(validator.validateComponent('Error', { code: 'NOT_FOUND' }, 'x')).toEqual([]);
    expect(validator.validateComponent('Error', { message: 'no code' }, 'x')).toEqual([
      expect.stringContaining("required property 'code'"),
    ]);
  });
});
