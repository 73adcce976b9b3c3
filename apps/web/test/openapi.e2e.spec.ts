import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { OpenApiValidator } from '@meridian/testing';
import rootPackage from '../../../package.json';
import { TAGS } from '../src/http/openapi';
import { RouteCatalog } from '../src/http/route-catalog';
import { openApiViolationsOf, startWebApp, WebHarness } from './harness';

const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

/** Every operation of the document with its method and path. */
const operationsOf = (doc: any): Array<{ name: string; method: string; path: string; op: any }> =>
  Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(([path, item]) =>
    METHODS.filter((m) => item[m]).map((method) => ({ name: `${method.toUpperCase()} ${path}`, method, path, op: item[method] })),
  );

/** Every schema object under a node, with a path to it. */
function* schemasIn(node: any, at: string): Generator<[string, any]> {
  if (!node || typeof node !== 'object') return;
  yield [at, node];
  for (const [key, child] of Object.entries(node.properties ?? {})) yield* schemasIn(child, `${at}.${key}`);
  if (node.items) yield* schemasIn(node.items, `${at}[]`);
  if (typeof node.additionalProperties === 'object') yield* schemasIn(node.additionalProperties, `${at}{}`);
  for (const k of ['oneOf', 'anyOf', 'allOf']) for (const [i, b] of (node[k] ?? []).entries()) yield* schemasIn(b, `${at}.${k}[${i}]`);
}

/** Warnings of Redocly's recommended rules that stay, each with its reason: none. */
const ALLOWED_WARNINGS: string[] = [];

describe('OpenAPI document and reference', () => {
  let h: WebHarness;
  let doc: any;

  beforeAll(async () => {
    h = await startWebApp();
    doc = (await h.http.get('/api/openapi.json').expect(200)).body;
  });
  afterAll(async () => {
    await h?.close();
  });

  it('is an OpenAPI 3 document with both credential schemes and the error body', () => {
    expect(doc.openapi).toMatch(/^3\./);
    expect(doc.info).toMatchObject({ title: 'Meridian API', version: rootPackage.version });
    expect(doc.components.securitySchemes['api-key']).toMatchObject({ type: 'apiKey', in: 'header', name: 'X-Api-Key' });
    expect(doc.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(Object.keys(doc.components.schemas.ErrorBodyDto.properties).sort()).toEqual([
      'code',
      'details',
      'errorId',
      'message',
      'path',
      'timestamp',
      'validationErrors',
    ]);
  });

  it('documents every route with a success response, errors, and security unless anonymous', () => {
    const routes = h.app.get(RouteCatalog).routes;
    const problems: string[] = [];
    for (const route of routes) {
      const path = route.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
      const op = doc.paths[path]?.[route.method.toLowerCase()];
      const name = `${route.method} ${route.path}`;
      if (!op) {
        problems.push(`${name}: missing`);
        continue;
      }
      const statuses = Object.keys(op.responses ?? {});
      if (!statuses.some((s) => /^2\d\d$/.test(s))) problems.push(`${name}: no success response`);
      if (!op.tags?.length) problems.push(`${name}: no tag`);
      if (route.access?.kind !== 'public') {
        if (!op.security?.length) problems.push(`${name}: no security`);
        for (const s of ['401', '500']) if (!statuses.includes(s)) problems.push(`${name}: no ${s}`);
        if (route.access?.kind === 'role' && !statuses.includes('403')) problems.push(`${name}: no 403`);
        const errorRef = op.responses['401']?.content?.['application/json']?.schema?.$ref;
        if (errorRef !== '#/components/schemas/ErrorBodyDto') problems.push(`${name}: 401 without the error body`);
      }
      if (/:[A-Za-z]*[iI]d(\/|$)/.test(route.path) && !statuses.includes('400') && route.access?.kind !== 'public')
        problems.push(`${name}: path parameter without 400`);
    }
    expect(problems).toEqual([]);
  });

  it('describes the history endpoints exactly: parameters, the four-field envelope and every item field', () => {
    const schema = (ref: string) => doc.components.schemas[ref.replace('#/components/schemas/', '')];
    const params = (op: any) => Object.fromEntries(op.parameters.map((p: any) => [`${p.in}:${p.name}`, p.schema]));
    const page = (op: any) => schema(op.responses['200'].content['application/json'].schema.$ref);
    const item = (op: any) => schema(page(op).properties.items.items.$ref);
    const paging = {
      'query:page': { type: 'integer', minimum: 1, default: 1 },
      'query:pageSize': { type: 'integer', minimum: 1, maximum: 1000, default: 50 },
    };
    const window = {
      'query:fromDate': { type: 'string', format: 'date-time', example: '2025-03-01T10:00:00Z' },
      'query:toDate': { type: 'string', format: 'date-time', example: '2025-03-01T10:00:00Z' },
    };
    const systemId = { type: 'integer', minimum: 1, maximum: 2147483647 };
    const uuid = { type: 'string', format: 'uuid' };
    const cases: Array<[string, Record<string, unknown>, string[] | null]> = [
      [
        '/api/v1/history/deleted-objects/cso',
        {
          ...paging,
          ...window,
          'query:connectedSystemId': { type: 'integer', minimum: 1 },
          'query:externalIdSearch': { type: 'string', maxLength: 200 },
        },
        [
          'id',
          'externalId',
          'displayName',
          'objectTypeName',
          'connectedSystemId',
          'connectedSystemName',
          'changeTime',
          'initiatedByType',
          'initiatedByName',
        ],
      ],
      [
        '/api/v1/history/deleted-objects/mvo',
        {
          ...paging,
          ...window,
          'query:objectTypeId': { type: 'integer', minimum: 1 },
          'query:displayNameSearch': { type: 'string', maxLength: 200 },
        },
        ['id', 'displayName', 'objectTypeName', 'objectTypeId', 'changeTime', 'initiatedByType', 'initiatedByName'],
      ],
      ['/api/v1/history/connected-systems/{connectedSystemId}/count', { 'path:connectedSystemId': systemId }, null],
      [
        '/api/v1/metaverse/objects/{id}/history',
        { 'path:id': uuid, ...paging },
        [
          'id',
          'changeType',
          'changeTime',
          'attributeChanges',
          'connectedSystemId',
          'connectedSystemName',
          'connectedSystemObjectId',
          'activityId',
          'runProfileId',
          'runProfileName',
          'initiatedByType',
          'initiatedByName',
        ],
      ],
      [
        '/api/v1/synchronisation/connected-systems/{connectedSystemId}/connector-space/{objectId}/history',
        { 'path:connectedSystemId': systemId, 'path:objectId': uuid, ...paging },
        [
          'id',
          'changeType',
          'changeTime',
          'attributeChanges',
          'connectedSystemId',
          'connectedSystemName',
          'externalId',
          'displayName',
          'activityId',
          'runProfileId',
          'runProfileName',
          'initiatedByType',
          'initiatedByName',
        ],
      ],
    ];
    for (const [path, expectedParams, itemFields] of cases) {
      const op = doc.paths[path].get;
      expect({ path, tags: op.tags, statuses: Object.keys(op.responses).sort() }).toEqual({
        path,
        tags: ['History'],
        statuses: ['200', '400', '401', '403', ...(path.includes('deleted-objects') ? [] : ['404']), '429', '500', '503'],
      });
      expect({ path, params: params(op) }).toEqual({ path, params: expectedParams });
      expect(op.parameters).toHaveLength(Object.keys(expectedParams).length);
      if (!itemFields) continue;
      expect({ path, envelope: page(op).required.sort() }).toEqual({ path, envelope: ['items', 'page', 'pageSize', 'totalCount'] });
      expect(Object.keys(page(op).properties).sort()).toEqual(['items', 'page', 'pageSize', 'totalCount']);
      expect({ path, fields: Object.keys(item(op).properties).sort() }).toEqual({ path, fields: [...itemFields].sort() });
    }
    const count = doc.paths['/api/v1/history/connected-systems/{connectedSystemId}/count'].get;
    expect(schema(count.responses['200'].content['application/json'].schema.$ref).required.sort()).toEqual([
      'changeRecordCount',
      'connectedSystemId',
      'connectedSystemName',
    ]);
    expect(Object.keys(doc.components.schemas.MetaverseAttributeChangeDto.properties).sort()).toEqual([
      'attributeId',
      'attributeName',
      'contributedBySystemId',
      'contributedBySystemName',
      'newValues',
      'oldValues',
    ]);
    expect(Object.keys(doc.components.schemas.AttributeChangeDto.properties).sort()).toEqual([
      'attributeId',
      'attributeName',
      'newValues',
      'oldValues',
    ]);
  });

  it('describes the history cleanup result (spec 2.13) exactly', () => {
    const op = doc.paths['/api/v1/history/cleanup'].post;
    expect(op.requestBody).toBeUndefined();
    expect(Object.keys(op.responses).sort()).toEqual(['200', '400', '401', '403', '413', '415', '429', '500', '503']);
    const ref = op.responses['200'].content['application/json'].schema.$ref as string;
    const schema = doc.components.schemas[ref.replace('#/components/schemas/', '')];
    expect(schema.required.sort()).toEqual([
      'activitiesDeleted',
      'batchSize',
      'csoChangesDeleted',
      'cutoffDate',
      'mvoChangesDeleted',
      'newestRecordDeleted',
      'oldestRecordDeleted',
      'retentionPeriodDays',
    ]);
    const shape = Object.fromEntries(
      Object.entries(schema.properties as Record<string, any>).map(([k, v]) => [k, [v.type, v.format ?? null, v.nullable ?? false]]),
    );
    expect(shape).toEqual({
      csoChangesDeleted: ['integer', null, false],
      mvoChangesDeleted: ['integer', null, false],
      activitiesDeleted: ['integer', null, false],
      oldestRecordDeleted: ['string', 'date-time', true],
      newestRecordDeleted: ['string', 'date-time', true],
      cutoffDate: ['string', 'date-time', false],
      retentionPeriodDays: ['integer', null, false],
      batchSize: ['integer', null, false],
    });
  });

  it('gives every operation a unique id and a short sentence-case summary without a trailing period', () => {
    const problems: string[] = [];
    const ids = new Set<string>();
    for (const { name, op } of operationsOf(doc)) {
      if (typeof op.summary !== 'string' || !/^[A-Z][^\n]{2,70}$/.test(op.summary) || /[.\s]$/.test(op.summary))
        problems.push(`${name}: summary ${JSON.stringify(op.summary)}`);
      if (!op.operationId || ids.has(op.operationId)) problems.push(`${name}: operationId ${op.operationId}`);
      ids.add(op.operationId);
    }
    expect(problems).toEqual([]);
  });

  it('declares servers and every tag it uses, each with a description', () => {
    expect(doc.servers).toEqual([expect.objectContaining({ url: '/' })]);
    const used = new Set(operationsOf(doc).flatMap(({ op }) => op.tags));
    const declared = Object.fromEntries((doc.tags as Array<{ name: string; description: string }>).map((t) => [t.name, t.description]));
    expect([...used].filter((t) => !declared[t])).toEqual([]);
    expect(Object.entries(declared).filter(([, d]) => !d)).toEqual([]);
    expect(Object.keys(declared)).toEqual(Object.keys(TAGS));
  });

  it('puts both credential schemes on every guarded operation and security: [] on the anonymous ones', () => {
    const routes = h.app.get(RouteCatalog).routes;
    const problems: string[] = [];
    for (const route of routes) {
      const op = doc.paths[route.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}')]?.[route.method.toLowerCase()];
      const name = `${route.method} ${route.path}`;
      if (route.access?.kind === 'public') {
        if (!Array.isArray(op?.security) || op.security.length) problems.push(`${name}: anonymous without security: []`);
        continue;
      }
      expect({ name, security: op?.security }).toEqual({ name, security: expect.arrayContaining([{ 'api-key': [] }, { bearer: [] }]) });
    }
    expect(problems).toEqual([]);
    expect(
      routes
        .filter((r) => r.access?.kind === 'public')
        .map((r) => `${r.method} ${r.path}`)
        .sort(),
    ).toEqual([
      'GET /api/v1/auth/config',
      'GET /api/v1/health',
      'GET /api/v1/health/live',
      'GET /api/v1/health/ready',
      'GET /api/v1/health/version',
    ]);
  });

  it('types ids: UUID path ids have format uuid, integer ids and counts are integers, never number', () => {
    const problems: string[] = [];
    for (const { name, op } of operationsOf(doc)) {
      for (const p of op.parameters ?? []) {
        const schema = p.schema ?? {};
        if (p.in === 'path' && /(^id|Id)$/.test(p.name)) {
          const uuid = schema.type === 'string' && schema.format === 'uuid';
          const int = schema.type === 'integer' && schema.minimum === 1;
          if (!uuid && !int) problems.push(`${name} ${p.name}: ${JSON.stringify(schema)}`);
        }
        if (schema.type === 'number') problems.push(`${name} ${p.name}: number`);
      }
    }
    for (const [name, schema] of Object.entries(doc.components.schemas as Record<string, any>)) {
      for (const [at, node] of schemasIn(schema, name)) {
        const key = at.split('.').pop()!;
        if (node.type === 'number' && /(^id$|Id$|Count$|^total|^page|Index$)/.test(key)) problems.push(`${at}: number`);
        // Ids that are not Meridian's UUIDs: the provider's client id, log error ids, external ids, any target's id.
        const notUuid = ['clientId', 'errorId', 'targetId', 'externalId', 'secondaryExternalId'];
        const id = /(^id|Id)(s\[\])?$/.test(key) && !notUuid.includes(key);
        if (id && node.type === 'string' && node.format !== 'uuid') problems.push(`${at}: string id without format uuid`);
      }
    }
    expect(problems).toEqual([]);
    const params = (path: string, method = 'get') =>
      Object.fromEntries(doc.paths[path][method].parameters.map((p: any) => [p.name, p.schema]));
    expect(params('/api/v1/schedules/{id}')).toEqual({ id: { type: 'string', format: 'uuid' } });
    expect(params('/api/v1/roles/{id}/members/{metaverseObjectId}', 'delete')).toEqual({
      id: { type: 'integer', minimum: 1, maximum: 2147483647 },
      metaverseObjectId: { type: 'string', format: 'uuid' },
    });
    const paged = doc.components.schemas.SchedulePage.properties;
    expect([paged.totalCount.type, paged.page.type, paged.pageSize.type, paged.totalPages.type]).toEqual([
      'integer',
      'integer',
      'integer',
      'integer',
    ]);
  });

  it('writes nullable so that null validates: never without a type, never beside allOf', () => {
    const problems: string[] = [];
    for (const [name, schema] of Object.entries(doc.components.schemas as Record<string, any>)) {
      for (const [at, node] of schemasIn(schema, name)) {
        if (node.nullable && !node.type) problems.push(`${at}: nullable without type`);
        if (node.nullable && node.allOf) problems.push(`${at}: nullable beside allOf`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('describes the test-expression result as the value it is, and a null error as valid', async () => {
    const props = doc.components.schemas.TestExpressionResultDto.properties;
    expect(props.result.type).toBeUndefined();
    expect(props.result.oneOf.map((b: any) => b.type)).toEqual(['string', 'number', 'boolean', 'array']);
    const validator = new OpenApiValidator(doc);
    const cases: Array<[Record<string, unknown>, unknown, string | null]> = [
      [{ expression: 'Lower(cs["sn"])', cs: { sn: 'LOVELACE' } }, 'lovelace', null],
      [{ expression: 'cs["a"] * 2 + 1', cs: { a: 20 } }, 41, null],
      [{ expression: '!cs["flag"]', cs: { flag: false } }, true, null],
      [{ expression: 'Split(cs["groups"], ";")', cs: { groups: 'a;b' } }, ['a', 'b'], null],
      [{ expression: 'Upper(cs["missing"])' }, null, null],
      [{ expression: 'cs["a"] / cs["b"]', cs: { a: 1, b: 0 } }, null, 'evaluation error'],
    ];
    for (const [body, result, error] of cases) {
      const res = await h.http.post('/api/v1/synchronisation/test-expression').set('X-Api-Key', h.adminKey).send(body).expect(200);
      expect({ body, result: res.body.result, error: res.body.error === null ? null : 'evaluation error' }).toEqual({
        body,
        result,
        error,
      });
      const sample = {
        method: 'POST',
        path: '/api/v1/synchronisation/test-expression',
        status: 200,
        contentType: res.headers['content-type'],
      };
      expect(validator.validate({ ...sample, body: res.body })).toEqual([]);
    }
    const schema = doc.components.schemas.ConnectedSystemDto.properties.capabilities;
    expect(schema.oneOf).toEqual([
      { $ref: '#/components/schemas/ConnectorCapabilitiesDto' },
      expect.objectContaining({ nullable: true, enum: [null] }),
    ]);
  });

  it('documents the PEM download as PEM and its errors as JSON', async () => {
    const responses = doc.paths['/api/v1/certificates/{id}/pem'].get.responses;
    expect(Object.keys(responses['200'].content)).toEqual(['application/x-pem-file']);
    for (const status of ['400', '401', '403', '404', '429', '500', '503'])
      expect({ status, content: Object.keys(responses[status].content) }).toEqual({ status, content: ['application/json'] });
    const res = await h.http.get('/api/v1/certificates/0190d4c2-7b1e-7c3a-9f00-000000000001/pem').set('X-Api-Key', h.adminKey).expect(404);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
  });

  it('documents 400, 413 and 415 wherever a body can be sent, and the 415 a text body gets', async () => {
    const problems: string[] = [];
    for (const { name, method, op } of operationsOf(doc)) {
      if (!['post', 'put', 'patch'].includes(method)) continue;
      for (const status of ['400', '413', '415'])
        if (op.responses[status]?.content?.['application/json']?.schema?.$ref !== '#/components/schemas/ErrorBodyDto')
          problems.push(`${name}: no ${status}`);
    }
    expect(problems).toEqual([]);
    const res = await h.http
      .post('/api/v1/schedules')
      .set('X-Api-Key', h.adminKey)
      .set('Content-Type', 'text/plain')
      .send('name=nightly')
      .expect(415);
    expect(res.body.code).toBe('BAD_REQUEST');
  });

  it('documents that unknown body fields are refused, as the validation pipe does', async () => {
    const bodies = operationsOf(doc)
      .map(({ op }) => op.requestBody?.content?.['application/json']?.schema?.$ref as string | undefined)
      .filter((ref): ref is string => !!ref)
      .map((ref) => ref.replace('#/components/schemas/', ''));
    expect(bodies.length).toBeGreaterThan(20);
    expect([...new Set(bodies)].filter((name) => doc.components.schemas[name].additionalProperties !== false)).toEqual([]);
    expect(doc.info.description).toMatch(/not list are rejected with 400 VALIDATION_ERROR/);
    const res = await h.http
      .post('/api/v1/metaverse/object-types')
      .set('X-Api-Key', h.adminKey)
      .send({ name: 'Printer', pluralName: 'Printers', colour: 'blue' })
      .expect(400);
    expect(res.body.code).toBe('VALIDATION_ERROR');
    expect(Object.keys(res.body.validationErrors)).toContain('colour');
  });

  it('documents 429, 500 and 503 on every operation behind the rate limiter, with Retry-After on 429 and 503', () => {
    const problems: string[] = [];
    for (const { name, path, op } of operationsOf(doc)) {
      if (path.startsWith('/api/v1/health')) continue;
      for (const status of ['429', '500', '503']) if (!op.responses[status]) problems.push(`${name}: no ${status}`);
      for (const status of ['429', '503'])
        if (op.responses[status] && !op.responses[status].headers?.['Retry-After']?.required)
          problems.push(`${name}: ${status} without Retry-After`);
    }
    expect(problems).toEqual([]);
    expect(doc.paths['/api/v1/health/ready'].get.responses['503']).toBeDefined();
  });

  it('documents 400 on every operation, health included: a NUL character anywhere in a request is refused', async () => {
    const missing = operationsOf(doc)
      .filter(({ op }) => !op.responses['400'])
      .map(({ name }) => name);
    expect(missing).toEqual([]);
    const res = await h.http.get('/api/v1/health/live').set('X-Trace', 'a%00b').expect(400);
    expect(res.body.code).toBe('VALIDATION_ERROR');
  });

  it('lets a client read the error details: any JSON value, not an empty object', () => {
    const details = doc.components.schemas.ErrorBodyDto.properties.details;
    expect(details.type).toBeUndefined();
    expect(details.description).toMatch(/any JSON value/);
  });

  it("passes Redocly's recommended rules with no errors and only the justified warnings", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'meridian-openapi-'));
    try {
      const file = join(dir, 'openapi.json');
      writeFileSync(file, JSON.stringify(doc));
      const { stdout } = await promisify(execFile)(
        require.resolve('@redocly/cli/bin/cli.js'),
        ['lint', '--extends', 'recommended', '--format', 'json', file],
        { env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' }, maxBuffer: 64 * 1024 * 1024 },
      ).catch((e: { stdout?: string }) => ({ stdout: e.stdout ?? '' }));
      const report = JSON.parse(stdout) as {
        problems: Array<{ ruleId: string; severity: string; message: string; location: Array<{ pointer: string }> }>;
      };
      const describe = (p: (typeof report.problems)[number]) => `${p.ruleId} ${p.location[0]?.pointer}`;
      expect(report.problems.filter((p) => p.severity === 'error').map((p) => `${describe(p)}: ${p.message}`)).toEqual([]);
      expect(
        report.problems
          .filter((p) => p.severity === 'warn')
          .map(describe)
          .sort(),
      ).toEqual([...ALLOWED_WARNINGS].sort());
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it('checks what the suite receives: an undocumented answer is a violation, an unknown route only needs the error body', () => {
    const validator = new OpenApiValidator(doc);
    const at = '/api/v1/schedules';
    expect(openApiViolationsOf(validator, { method: 'POST', path: at, status: 418, contentType: 'application/json', body: {} })).toEqual([
      expect.stringContaining('status 418 is not documented'),
    ]);
    expect(openApiViolationsOf(validator, { method: 'GET', path: at, status: 200, contentType: 'text/html', body: '<p>' })).toEqual([
      expect.stringContaining('content type "text/html" is not documented'),
    ]);
    const error = { code: 'NOT_FOUND', message: 'No route', timestamp: new Date().toISOString(), path: '/api/v1/nope' };
    expect(
      openApiViolationsOf(validator, { method: 'GET', path: '/api/v1/nope', status: 404, contentType: 'application/json', body: error }),
    ).toEqual([]);
    expect(
      openApiViolationsOf(validator, {
        method: 'GET',
        path: '/api/v1/nope',
        status: 404,
        contentType: 'application/json',
        body: { message: 'x' },
      }),
    ).not.toEqual([]);
    expect(
      openApiViolationsOf(validator, { method: 'GET', path: '/api/reference/', status: 200, contentType: 'text/html', body: '<html>' }),
    ).toEqual([]);
    expect(h.openApiChecked).toBeGreaterThan(10);
    expect(h.openApiViolations).toEqual([]);
  });

  it('serves the interactive reference', async () => {
    const res = await h.http.get('/api/reference/').expect(200);
    expect(res.headers['content-type']).toMatch(/text\/html/);
    expect(res.text).toMatch(/swagger-ui/i);
  });
});
