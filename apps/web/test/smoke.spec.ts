import { startWebApp, WebHarness } from './harness';

describe('web smoke', () => {
  let h: WebHarness;
  beforeAll(async () => {
    h = await startWebApp();
  });
  afterAll(async () => {
    await h?.close();
  });

  it('answers health', async () => {
    const res = await h.http.get('/api/v1/health').expect(200);
    expect(res.body.status).toBe('healthy');
  });

  it('is ready', async () => {
    const res = await h.http.get('/api/v1/health/ready');
    expect(res.body).toMatchObject({ status: 'ready' });
    expect(res.status).toBe(200);
  });
});
