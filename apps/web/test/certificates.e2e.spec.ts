import { CertificatesService } from '@meridian/application';
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { startWebApp, WebHarness } from './harness';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const DAY = 86_400_000;

interface Res {
  status: number;
  body: any;
  text?: string;
}

function expectError(res: Res, status: number, code: string, fields: string[] = []): void {
  expect({ status: res.status, code: res.body.code }).toEqual({ status, code });
  for (const f of fields) expect(res.body.validationErrors?.[f]?.length).toBeGreaterThan(0);
}

/** A certificate made by the openssl CLI, with what openssl itself says about it. */
interface TestCert {
  file: string;
  pem: string;
  derBase64: string;
  expected: {
    thumbprint: string;
    subject: string;
    issuer: string;
    serialNumber: string;
    notBefore: string;
    notAfter: string;
    isCertificateAuthority: boolean;
  };
}

/**
 * Generates the certificates with the openssl CLI in a temporary directory: a self-signed CA, a
 * leaf it signs, one that expires within days, and one that expired in 2020 (openssl 3.0's req and
 * x509 cannot back-date, so that one is self-signed through `openssl ca -startdate -enddate`).
 */
class OpenSsl {
  readonly dir = mkdtempSync(join(tmpdir(), 'meridian-certs-'));

  run(...args: string[]): string {
    return execFileSync('openssl', args, { cwd: this.dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  }

  path(name: string): string {
    return join(this.dir, name);
  }

  key(name: string): string {
    this.run('genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', `${name}.key`);
    return `${name}.key`;
  }

  selfSigned(name: string, subject: string, days: number, ca = true): TestCert {
    const key = this.key(name);
    this.run(
      'req',
      '-x509',
      '-new',
      '-key',
      key,
      '-out',
      `${name}.pem`,
      '-days',
      String(days),
      '-subj',
      subject,
      '-addext',
      `basicConstraints=critical,CA:${ca ? 'TRUE' : 'FALSE'}`,
    );
    return this.describe(`${name}.pem`);
  }

  signed(name: string, subject: string, issuer: string, serial: number): TestCert {
    const key = this.key(name);
    this.run('req', '-new', '-key', key, '-out', `${name}.csr`, '-subj', subject);
    this.run(
      'x509',
      '-req',
      '-in',
      `${name}.csr`,
      '-CA',
      `${issuer}.pem`,
      '-CAkey',
      `${issuer}.key`,
      '-set_serial',
      String(serial),
      '-days',
      '400',
      '-out',
      `${name}.pem`,
    );
    return this.describe(`${name}.pem`);
  }

  expired(name: string, subject: string): TestCert {
    const key = this.key(name);
    writeFileSync(
      this.path('ca.cnf'),
      [
        '[ ca ]',
        'default_ca = local',
        '[ local ]',
        'database = index.txt',
        'new_certs_dir = .',
        'serial = serial',
        'default_md = sha256',
        'policy = any',
        'unique_subject = no',
        'preserve = yes',
        '[ any ]',
        'commonName = supplied',
        'organizationName = optional',
        '[ v3_ca ]',
        'basicConstraints = critical, CA:true',
        '[ req ]',
        'distinguished_name = dn',
        '[ dn ]',
      ].join('\n'),
    );
    writeFileSync(this.path('index.txt'), '');
    writeFileSync(this.path('serial'), '1000\n');
    this.run('req', '-new', '-key', key, '-out', `${name}.csr`, '-subj', subject, '-config', 'ca.cnf');
    this.run(
      'ca',
      '-batch',
      '-config',
      'ca.cnf',
      '-selfsign',
      '-keyfile',
      key,
      '-in',
      `${name}.csr`,
      '-out',
      `${name}.pem`,
      '-startdate',
      '20200101000000Z',
      '-enddate',
      '20200201000000Z',
      '-extensions',
      'v3_ca',
      '-notext',
    );
    return this.describe(`${name}.pem`);
  }

  describe(file: string): TestCert {
    // Normalise to the certificate alone (openssl ca writes nothing else with -notext, but be sure).
    const pem = this.run('x509', '-in', file);
    const der = execFileSync('openssl', ['x509', '-in', file, '-outform', 'DER'], { cwd: this.dir });
    const out = this.run(
      'x509',
      '-in',
      file,
      '-noout',
      '-fingerprint',
      '-sha256',
      '-serial',
      '-dates',
      '-dateopt',
      'iso_8601',
      '-subject',
      '-issuer',
      '-nameopt',
      'RFC2253',
      '-ext',
      'basicConstraints',
    );
    const field = (name: string) => new RegExp(`^${name}=(.*)$`, 'm').exec(out)?.[1] ?? '';
    const isoDate = (text: string) => new Date(text.replace(' ', 'T')).toISOString();
    return {
      file,
      pem,
      derBase64: der.toString('base64'),
      expected: {
        thumbprint: field('sha256 Fingerprint').replace(/:/g, ''),
        subject: field('subject'),
        issuer: field('issuer'),
        serialNumber: field('serial'),
        notBefore: isoDate(field('notBefore')),
        notAfter: isoDate(field('notAfter')),
        isCertificateAuthority: /CA:TRUE/.test(out),
      },
    };
  }

  cleanup(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

describe('Certificates (/api/v1/certificates)', () => {
  let h: WebHarness;
  let db: Client;
  let ssl: OpenSsl;
  let ca: TestCert;
  let leaf: TestCert;
  let expiring: TestCert;
  let expired: TestCert;
  let other: TestCert;

  const admin = () => h.adminKey;
  const upload = (body: Record<string, unknown>, key = admin()) => h.http.post('/api/v1/certificates').set('X-Api-Key', key).send(body);
  const patch = (id: string, body: Record<string, unknown>) =>
    h.http.patch(`/api/v1/certificates/${id}`).set('X-Api-Key', admin()).send(body);
  const get = (id: string) => h.http.get(`/api/v1/certificates/${id}`).set('X-Api-Key', admin());
  const count = async () => Number((await db.query('SELECT count(*) FROM trusted_certificate')).rows[0].count);
  const activities = async (targetId: string) =>
    (
      await db.query(
        `SELECT target_type, target_operation_type, target_name, target_id, initiated_by_type, initiated_by_name, details
       FROM activity WHERE target_id = $1 ORDER BY created, completed`,
        [targetId],
      )
    ).rows;

  beforeAll(async () => {
    ssl = new OpenSsl();
    ca = ssl.selfSigned('root', '/C=GB/O=Acme, Ltd/CN=Acme Root CA', 3650);
    leaf = ssl.signed('ldap', '/C=GB/O=Acme, Ltd/CN=ldap.acme.test', 'root', 0x0a1b);
    expiring = ssl.selfSigned('soon', '/CN=Expiring Soon CA', 10);
    expired = ssl.expired('old', '/CN=Expired CA/O=Old Org');
    other = ssl.selfSigned('other', '/CN=Other CA', 365);
    h = await startWebApp();
    db = new Client({ connectionString: h.db.url });
    await db.connect();
  });
  afterAll(async () => {
    await db?.end();
    await h?.close();
    ssl?.cleanup();
  });

  describe('upload and read', () => {
    it('starts with no certificates', async () => {
      const res = await h.http.get('/api/v1/certificates').set('X-Api-Key', admin()).expect(200);
      expect(res.body).toEqual([]);
    });

    it('uploads a PEM CA and returns the fields openssl reports', async () => {
      const res = await upload({ name: 'Acme Root CA', notes: 'Issues the LDAPS certificates.', certificate: ca.pem });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        name: 'Acme Root CA',
        notes: 'Issues the LDAPS certificates.',
        isEnabled: true,
        ...ca.expected,
        isExpired: false,
        isExpiringSoon: false,
        created: expect.stringMatching(ISO),
        lastUpdated: null,
      });
      // What openssl printed, spelled out, so a formatting change on either side is noticed.
      expect(res.body.subject).toBe('CN=Acme Root CA,O=Acme\\, Ltd,C=GB');
      expect(res.body.issuer).toBe(res.body.subject);
      expect(res.body.thumbprint).toMatch(/^[0-9A-F]{64}$/);
      expect(res.body).not.toHaveProperty('pem');

      const got = await get(res.body.id).expect(200);
      expect(got.body).toEqual(res.body);
      const list = await h.http.get('/api/v1/certificates').set('X-Api-Key', admin()).expect(200);
      expect(list.body).toEqual([res.body]);

      const row = (await db.query('SELECT pem FROM trusted_certificate WHERE id = $1', [res.body.id])).rows[0];
      expect(row.pem.trim()).toBe(ca.pem.trim());
    });

    it('uploads a DER (base64) leaf and reads issuer, serial and CA flag from it', async () => {
      const res = await upload({ name: 'LDAP server', certificateBase64: leaf.derBase64, isEnabled: false });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({
        name: 'LDAP server',
        notes: null,
        isEnabled: false,
        ...leaf.expected,
        isExpired: false,
        isExpiringSoon: false,
      });
      expect(res.body).toMatchObject({
        isCertificateAuthority: false,
        serialNumber: '0A1B',
        issuer: ca.expected.subject,
        subject: 'CN=ldap.acme.test,O=Acme\\, Ltd,C=GB',
      });
      // Stored as PEM: the download is the same certificate openssl made.
      const download = await h.http
        .get(`/api/v1/certificates/${res.body.id}/pem`)
        .set('X-Api-Key', admin())
        .buffer(true)
        .parse((r, cb) => {
          let t = '';
          r.on('data', (c: Buffer) => {
            t += c.toString('utf8');
          });
          r.on('end', () => cb(null, t));
        })
        .expect(200);
      expect(download.headers['content-type']).toMatch(/^application\/x-pem-file/);
      expect(download.headers['content-disposition']).toMatch(/^attachment; filename="[0-9a-f]{16}\.pem"$/);
      expect(String(download.body).trim()).toBe(leaf.pem.trim());
    });

    it('flags an expired certificate and one expiring within 30 days', async () => {
      const old = await upload({ name: 'Old CA', certificate: expired.pem });
      expect(old.status).toBe(201);
      expect(old.body).toMatchObject({
        ...expired.expected,
        notBefore: '2020-01-01T00:00:00.000Z',
        notAfter: '2020-02-01T00:00:00.000Z',
        subject: 'O=Old Org,CN=Expired CA',
        isExpired: true,
        isExpiringSoon: false,
        isCertificateAuthority: true,
      });

      const soon = await upload({ name: 'Soon', certificate: expiring.pem });
      expect(soon.status).toBe(201);
      expect(soon.body).toMatchObject({ ...expiring.expected, isExpired: false, isExpiringSoon: true });
      const left = new Date(soon.body.notAfter).getTime() - Date.now();
      expect(left).toBeGreaterThan(9 * DAY);
      expect(left).toBeLessThanOrEqual(10 * DAY);
    });

    it('accepts PEM with text around the block (as openssl pkcs12 writes it) and stores the certificate alone', async () => {
      const res = await upload({
        name: 'Other CA',
        certificate: `Bag Attributes\n    friendlyName: other\nsubject=/CN=Other CA\n\n${other.pem}\ntrailing words\n`,
      });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject(other.expected);
      const row = (await db.query('SELECT pem FROM trusted_certificate WHERE id = $1', [res.body.id])).rows[0];
      expect(row.pem).toBe(other.pem);
    });

    it('lists by name', async () => {
      const list = await h.http.get('/api/v1/certificates').set('X-Api-Key', admin()).expect(200);
      expect(list.body.map((c: { name: string }) => c.name)).toEqual(['Acme Root CA', 'LDAP server', 'Old CA', 'Other CA', 'Soon']);
    });

    it('refuses a certificate that is already trusted with 409, whatever the encoding', async () => {
      const before = await count();
      const again = await upload({ name: 'Copy', certificateBase64: ca.derBase64 });
      expectError(again, 409, 'CONFLICT');
      expect(again.body.message).toContain(ca.expected.thumbprint);
      const existing = (await h.http.get('/api/v1/certificates').set('X-Api-Key', admin())).body.find(
        (c: { name: string }) => c.name === 'Acme Root CA',
      );
      expect(again.body.details).toEqual({ thumbprint: ca.expected.thumbprint, existingId: existing.id });
      expectError(await upload({ name: 'Copy 2', certificate: ca.pem }), 409, 'CONFLICT');
      expect(await count()).toBe(before);
    });
  });

  describe('refused uploads', () => {
    let before: number;
    beforeEach(async () => {
      before = await count();
    });
    afterEach(async () => {
      expect(await count()).toBe(before);
    });

    it('refuses a PEM that carries a private key, and does not echo the key', async () => {
      const key = readFileSync(ssl.path('other.key'), 'utf8');
      for (const certificate of [`${ca.pem}${key}`, `${key}${ca.pem}`]) {
        const res = await upload({ name: 'With key', certificate });
        expectError(res, 400, 'VALIDATION_ERROR', ['certificate']);
        expect(res.body.validationErrors.certificate.join(' ')).toMatch(/private key/i);
        expect(JSON.stringify(res.body)).not.toContain(key.split('\n')[1]);
      }
      const rsa = '-----BEGIN RSA PRIVATE KEY-----\nMIIBOgIBAAJBAK\n-----END RSA PRIVATE KEY-----\n';
      expectError(await upload({ name: 'With key', certificate: `${ca.pem}${rsa}` }), 400, 'VALIDATION_ERROR', ['certificate']);
    });

    it('refuses text that is not one valid certificate', async () => {
      const body = ca.pem.split('\n');
      const corrupted = [body[0], body[1].replace(/^.{10}/, 'AAAAAAAAAA'), ...body.slice(2)].join('\n');
      for (const certificate of [
        'hello',
        '',
        corrupted,
        `${ca.pem}${other.pem}`,
        ca.pem.replace(/CERTIFICATE/g, 'TRUSTED CERTIFICATE'),
        '-----BEGIN CERTIFICATE-----\n!!!not base64!!!\n-----END CERTIFICATE-----',
      ]) {
        expectError(await upload({ name: 'Bad', certificate }), 400, 'VALIDATION_ERROR', ['certificate']);
      }
    });

    it('refuses certificateBase64 that is not the base64 of a DER certificate', async () => {
      const der = Buffer.from(ca.derBase64, 'base64');
      for (const certificateBase64 of [
        'not base64!',
        '',
        Buffer.from('just some bytes').toString('base64'),
        ca.pem,
        Buffer.concat([der, Buffer.from('trailing')]).toString('base64'),
        der.subarray(0, der.length - 10).toString('base64'),
      ]) {
        expectError(await upload({ name: 'Bad', certificateBase64 }), 400, 'VALIDATION_ERROR', ['certificateBase64']);
      }
    });

    it('needs exactly one of certificate and certificateBase64', async () => {
      expectError(await upload({ name: 'None' }), 400, 'VALIDATION_ERROR', ['certificate', 'certificateBase64']);
      expectError(await upload({ name: 'Both', certificate: ca.pem, certificateBase64: ca.derBase64 }), 400, 'VALIDATION_ERROR', [
        'certificate',
        'certificateBase64',
      ]);
      expectError(await upload({ name: 'Wrong type', certificate: 42 }), 400, 'VALIDATION_ERROR', ['certificate']);
    });

    it('validates name, notes, isEnabled and unknown fields', async () => {
      const pem = leaf.pem;
      expectError(await upload({ certificate: pem }), 400, 'VALIDATION_ERROR', ['name']);
      expectError(await upload({ name: '', certificate: pem }), 400, 'VALIDATION_ERROR', ['name']);
      expectError(await upload({ name: '   ', certificate: pem }), 400, 'VALIDATION_ERROR', ['name']);
      expectError(await upload({ name: 'x'.repeat(256), certificate: pem }), 400, 'VALIDATION_ERROR', ['name']);
      expectError(await upload({ name: 'ok', notes: 'n'.repeat(2001), certificate: pem }), 400, 'VALIDATION_ERROR', ['notes']);
      expectError(await upload({ name: 'ok', isEnabled: 'yes', certificate: pem }), 400, 'VALIDATION_ERROR', ['isEnabled']);
      expectError(await upload({ name: 'ok', thumbprint: 'AB', certificate: pem }), 400, 'VALIDATION_ERROR', ['thumbprint']);
      expectError(await upload({ name: 'ok', pem }), 400, 'VALIDATION_ERROR', ['pem']);
    });
  });

  describe('limits', () => {
    it('accepts a 255-character name and 2000-character notes', async () => {
      const s = ssl.selfSigned('limits', '/CN=Limits CA', 30 * 12);
      const res = await upload({ name: 'n'.repeat(255), notes: 'x'.repeat(2000), certificate: s.pem });
      expect(res.status).toBe(201);
      expect(res.body.name).toHaveLength(255);
      expect(res.body.notes).toHaveLength(2000);
      await h.http.delete(`/api/v1/certificates/${res.body.id}`).set('X-Api-Key', admin()).expect(204);
    });
  });

  describe('PATCH /api/v1/certificates/{id} (spec 4.11)', () => {
    let id: string;
    beforeAll(async () => {
      id = (await h.http.get('/api/v1/certificates').set('X-Api-Key', admin())).body.find(
        (c: { name: string }) => c.name === 'Other CA',
      ).id;
    });

    it('changes only the fields given and answers 204 with no body', async () => {
      const before = (await get(id)).body;
      const res = await patch(id, { name: 'Other root', notes: 'Renamed' });
      expect(res.status).toBe(204);
      expect(res.text).toBe('');
      const after = (await get(id)).body;
      expect(after).toEqual({ ...before, name: 'Other root', notes: 'Renamed', lastUpdated: expect.stringMatching(ISO) });

      await patch(id, { isEnabled: false }).expect(204);
      expect((await get(id)).body).toMatchObject({ name: 'Other root', notes: 'Renamed', isEnabled: false });
      await patch(id, { isEnabled: true, notes: null }).expect(204);
      expect((await get(id)).body).toMatchObject({ name: 'Other root', notes: null, isEnabled: true });
      await patch(id, {}).expect(204);
      expect((await get(id)).body).toMatchObject({
        name: 'Other root',
        notes: null,
        isEnabled: true,
        thumbprint: other.expected.thumbprint,
      });
    });

    it('accepts the limits: 1 and 255 characters of name, 2000 of notes', async () => {
      await patch(id, { name: 'x' }).expect(204);
      await patch(id, { name: 'y'.repeat(255), notes: 'z'.repeat(2000) }).expect(204);
      expect((await get(id)).body).toMatchObject({ name: 'y'.repeat(255), notes: 'z'.repeat(2000) });
      await patch(id, { name: 'Other root', notes: null }).expect(204);
    });

    it('refuses invalid values with 400 VALIDATION_ERROR naming the field, and changes nothing', async () => {
      const before = (await get(id)).body;
      expectError(await patch(id, { name: '' }), 400, 'VALIDATION_ERROR', ['name']);
      expectError(await patch(id, { name: 'a'.repeat(256) }), 400, 'VALIDATION_ERROR', ['name']);
      expectError(await patch(id, { name: null }), 400, 'VALIDATION_ERROR', ['name']);
      expectError(await patch(id, { name: 7 }), 400, 'VALIDATION_ERROR', ['name']);
      expectError(await patch(id, { notes: 'n'.repeat(2001) }), 400, 'VALIDATION_ERROR', ['notes']);
      expectError(await patch(id, { isEnabled: 'false' }), 400, 'VALIDATION_ERROR', ['isEnabled']);
      expectError(await patch(id, { isEnabled: null }), 400, 'VALIDATION_ERROR', ['isEnabled']);
      expectError(await patch(id, { thumbprint: 'AB' }), 400, 'VALIDATION_ERROR', ['thumbprint']);
      expectError(await patch(id, { certificate: ca.pem }), 400, 'VALIDATION_ERROR', ['certificate']);
      expect((await get(id)).body).toEqual(before);
    });

    it('answers 400 for an id that is not a UUID and 404 for an unknown one', async () => {
      expectError(await patch('not-a-uuid', { name: 'x' }), 400, 'VALIDATION_ERROR', ['id']);
      expectError(await patch('12', { name: 'x' }), 400, 'VALIDATION_ERROR', ['id']);
      expectError(await patch(randomUUID(), { name: 'x' }), 404, 'NOT_FOUND');
      expectError(await patch(randomUUID(), {}), 404, 'NOT_FOUND');
    });
  });

  describe('trusted CAs for connectors', () => {
    it('trustedCaPems returns the enabled, unexpired certificates only', async () => {
      const service = h.app.get(CertificatesService);
      const fingerprints = async () => {
        const pems = await service.trustedCaPems();
        const { X509Certificate } = await import('node:crypto');
        return pems.map((p) => new X509Certificate(p).fingerprint256.replace(/:/g, '')).sort();
      };
      // LDAP server was uploaded disabled; Old CA has expired.
      expect(await fingerprints()).toEqual([ca, expiring, other].map((c) => c.expected.thumbprint).sort());
      const id = (await h.http.get('/api/v1/certificates').set('X-Api-Key', admin())).body.find(
        (c: { name: string }) => c.name === 'Soon',
      ).id;
      await patch(id, { isEnabled: false }).expect(204);
      expect(await fingerprints()).toEqual([ca, other].map((c) => c.expected.thumbprint).sort());
      await patch(id, { isEnabled: true }).expect(204);
    });
  });

  describe('GET and DELETE by id', () => {
    it('answers 400 for a non-UUID id and 404 for an unknown one', async () => {
      for (const path of ['abc', 'abc/pem']) {
        expectError(await h.http.get(`/api/v1/certificates/${path}`).set('X-Api-Key', admin()), 400, 'VALIDATION_ERROR', ['id']);
      }
      expectError(await h.http.delete('/api/v1/certificates/abc').set('X-Api-Key', admin()), 400, 'VALIDATION_ERROR', ['id']);
      const unknown = randomUUID();
      expectError(await get(unknown), 404, 'NOT_FOUND');
      expectError(await h.http.get(`/api/v1/certificates/${unknown}/pem`).set('X-Api-Key', admin()), 404, 'NOT_FOUND');
      expectError(await h.http.delete(`/api/v1/certificates/${unknown}`).set('X-Api-Key', admin()), 404, 'NOT_FOUND');
    });

    it('deletes: 204, then 404; the same certificate can be uploaded again', async () => {
      const s = ssl.selfSigned('gone', '/CN=Short lived', 100);
      const created = (await upload({ name: 'Gone soon', certificate: s.pem })).body;
      const res = await h.http.delete(`/api/v1/certificates/${created.id}`).set('X-Api-Key', admin());
      expect(res.status).toBe(204);
      expect(res.text).toBe('');
      expectError(await get(created.id), 404, 'NOT_FOUND');
      expectError(await h.http.delete(`/api/v1/certificates/${created.id}`).set('X-Api-Key', admin()), 404, 'NOT_FOUND');
      const again = await upload({ name: 'Back again', certificate: s.pem });
      expect(again.status).toBe(201);
      await h.http.delete(`/api/v1/certificates/${again.body.id}`).set('X-Api-Key', admin()).expect(204);
    });
  });

  describe('access', () => {
    it('needs the Administrator role', async () => {
      const key = (await h.http.post('/api/v1/apikeys').set('X-Api-Key', admin()).send({ name: 'reader', roles: [] }).expect(201)).body.key;
      expectError(await h.http.get('/api/v1/certificates').set('X-Api-Key', key), 403, 'FORBIDDEN');
      expectError(await upload({ name: 'x', certificate: ca.pem }, key), 403, 'FORBIDDEN');
      expectError(await h.http.get('/api/v1/certificates'), 401, 'UNAUTHORISED');
    });
  });

  describe('activities', () => {
    it('records create, update and delete as TrustedCertificate with the initiator, and nothing for refused or empty changes', async () => {
      const s = ssl.selfSigned('audited', '/CN=Audited CA', 200);
      const created = (await upload({ name: 'Audited', certificate: s.pem })).body;
      await patch(created.id, { name: 'Audited (renamed)', isEnabled: false }).expect(204);
      await patch(created.id, { name: 'Audited (renamed)' }).expect(204); // same value: not a change
      await patch(created.id, { name: '' }).expect(400);
      await h.http.delete(`/api/v1/certificates/${created.id}`).set('X-Api-Key', admin()).expect(204);

      const rows = await activities(created.id);
      expect(rows.map((r) => r.target_operation_type)).toEqual(['Create', 'Update', 'Delete']);
      for (const r of rows) {
        expect(r).toMatchObject({
          target_type: 'TrustedCertificate',
          initiated_by_type: 'ApiKey',
          initiated_by_name: 'Bootstrap administrator key',
        });
      }
      expect(rows.map((r) => r.target_name)).toEqual(['Audited', 'Audited (renamed)', 'Audited (renamed)']);
      expect(rows[0].details).toMatchObject({ thumbprint: s.expected.thumbprint, subject: 'CN=Audited CA', isEnabled: true });
      expect(rows[1].details).toMatchObject({ changed: ['name', 'isEnabled'], previousName: 'Audited', isEnabled: false });
      expect(rows[2].details).toMatchObject({ thumbprint: s.expected.thumbprint });

      // Readable through the activities API too.
      const list = await h.http
        .get('/api/v1/activities')
        .query({ search: 'Audited', sortBy: 'created', sortDirection: 'asc' })
        .set('X-Api-Key', admin())
        .expect(200);
      expect(
        list.body.items.map((a: { targetType: string; targetOperationType: string }) => `${a.targetType}:${a.targetOperationType}`),
      ).toEqual(['TrustedCertificate:Create', 'TrustedCertificate:Update', 'TrustedCertificate:Delete']);
    });

    it('records nothing for a refused upload', async () => {
      const n = async () =>
        Number((await db.query(`SELECT count(*) FROM activity WHERE target_type = 'TrustedCertificate'`)).rows[0].count);
      const before = await n();
      await upload({ name: 'dup', certificate: ca.pem }).then((r) => expect(r.status).toBe(409));
      await upload({ name: '', certificate: ca.pem }).then((r) => expect(r.status).toBe(400));
      await h.http.delete(`/api/v1/certificates/${randomUUID()}`).set('X-Api-Key', admin()).expect(404);
      expect(await n()).toBe(before);
    });
  });
});
