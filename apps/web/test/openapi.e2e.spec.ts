import rootPackage from '../../../package.json';
import { RouteCatalog } from '../src/http/route-catalog';
import { startWebApp, WebHarness } from './harness';

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
        statuses: ['200', '400', '401', '403', ...(path.includes('deleted-objects') ? [] : ['404']), '429', '500'],
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
    expect(Object.keys(op.responses).sort()).toEqual(['200', '401', '403', '429', '500']);
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

  it('serves the interactive reference', async () => {
    const res = await h.http.get('/api/reference/').expect(200);
    expect(res.headers['content-type']).toMatch(/text\/html/);
    expect(res.text).toMatch(/swagger-ui/i);
  });
});
