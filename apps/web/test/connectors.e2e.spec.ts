import { startWebApp, WebHarness } from './harness';

describe('connectors API', () => {
  let h: WebHarness;
  const admin = () => ({ 'X-Api-Key': h.adminKey });

  beforeAll(async () => {
    h = await startWebApp();
  });
  afterAll(async () => {
    await h?.close();
  });

  it('lists the available connectors with capabilities and settings schema', async () => {
    const res = await h.http.get('/api/v1/synchronisation/connectors').set(admin()).expect(200);
    expect(Array.isArray(res.body)).toBe(true);
    const file = res.body.find((c: { type: string }) => c.type === 'File');
    expect(file).toMatchObject({
      type: 'File',
      displayName: 'File (CSV)',
      description: expect.any(String),
      capabilities: { fullImport: true, deltaImport: false, export: true, schemaDiscovery: true, paging: true, autoConfirmExport: true },
    });
    expect(Object.keys(file).sort()).toEqual(['capabilities', 'description', 'displayName', 'settings', 'type']);
    for (const setting of file.settings) {
      expect(Object.keys(setting).sort()).toEqual([
        'allowedValues',
        'defaultValue',
        'description',
        'displayName',
        'maxLength',
        'maximum',
        'minimum',
        'name',
        'required',
        'secret',
        'type',
      ]);
    }
    const byName = Object.fromEntries(file.settings.map((s: { name: string }) => [s.name, s]));
    expect(file.settings.map((s: { name: string }) => s.name)).toEqual([
      'filePath',
      'delimiter',
      'quote',
      'encoding',
      'multiValueDelimiter',
      'objectType',
      'objectTypeColumn',
      'mode',
      'sampleRows',
    ]);
    expect(byName.filePath).toMatchObject({
      type: 'FilePath',
      required: true,
      secret: false,
      defaultValue: null,
      allowedValues: null,
      maxLength: 1024,
    });
    expect(byName.encoding).toMatchObject({ type: 'Enum', defaultValue: 'utf-8', allowedValues: ['utf-8', 'utf-8-bom', 'latin1'] });
    expect(byName.mode).toMatchObject({ type: 'Enum', defaultValue: 'Import', allowedValues: ['Import', 'Export', 'Bidirectional'] });
    expect(byName.sampleRows).toMatchObject({ type: 'Integer', defaultValue: 1000, minimum: 1, maximum: 100000, allowedValues: null });
    expect(byName.delimiter).toMatchObject({ type: 'String', defaultValue: ',', minimum: null, maximum: null });
  });

  it('gets one connector by type, ignoring case', async () => {
    const list = await h.http.get('/api/v1/synchronisation/connectors').set(admin()).expect(200);
    const res = await h.http.get('/api/v1/synchronisation/connectors/file').set(admin()).expect(200);
    expect(res.body).toEqual(list.body.find((c: { type: string }) => c.type === 'File'));
  });

  it('answers 404 NOT_FOUND for an unknown type', async () => {
    const res = await h.http.get('/api/v1/synchronisation/connectors/Mainframe').set(admin()).expect(404);
    expect(res.body).toMatchObject({ code: 'NOT_FOUND', path: '/api/v1/synchronisation/connectors/Mainframe' });
    expect(res.body.message).toMatch(/Mainframe/);
  });

  it('documents both endpoints in the OpenAPI document', async () => {
    const doc = (await h.http.get('/api/openapi.json').expect(200)).body;
    const list = doc.paths['/api/v1/synchronisation/connectors'].get;
    const one = doc.paths['/api/v1/synchronisation/connectors/{type}'].get;
    expect(list.responses['200'].content['application/json'].schema).toEqual({
      type: 'array',
      items: { $ref: '#/components/schemas/ConnectorDto' },
    });
    expect(one.responses['200'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/ConnectorDto' });
    expect(Object.keys(one.responses)).toEqual(expect.arrayContaining(['200', '401', '403', '404']));
    expect(Object.keys(doc.components.schemas.ConnectorSettingDto.properties).sort()).toEqual([
      'allowedValues',
      'defaultValue',
      'description',
      'displayName',
      'maxLength',
      'maximum',
      'minimum',
      'name',
      'required',
      'secret',
      'type',
    ]);
  });
});
