import { hasMaskedSecret, maskConnectionString, restoreMaskedSecrets, SECRET_MASK, sqlConnectionStringProblem } from './connection-string';

describe('maskConnectionString', () => {
  it.each<[string, string]>([
    [
      'postgres://meridian:s3cr%40t@db.example.com:5432/hr?sslmode=require',
      'postgres://meridian:*****@db.example.com:5432/hr?sslmode=require',
    ],
    ['postgresql://user:p:a:ss@db/hr', 'postgresql://user:*****@db/hr'],
    ['mysql://root:pw@10.0.0.5:3306/app', 'mysql://root:*****@10.0.0.5:3306/app'],
    ['mariadb://svc:pw@host/db?password=other&charset=utf8', 'mariadb://svc:*****@host/db?password=*****&charset=utf8'],
    ['postgres://db/hr?user=x&PWD=secret#frag', 'postgres://db/hr?user=x&PWD=*****#frag'],
    ['postgres://user@db/hr', 'postgres://user@db/hr'],
    ['postgres://db/hr', 'postgres://db/hr'],
    ['Host=db;Username=u;Password=secret;Database=hr', 'Host=db;Username=u;Password=*****;Database=hr'],
    ['Server=db; pwd = secret ;Database=hr', 'Server=db; pwd = ***** ;Database=hr'],
  ])('%s → %s', (value, masked) => {
    expect(maskConnectionString(value)).toBe(masked);
  });
});

describe('restoreMaskedSecrets', () => {
  const stored = 'postgres://meridian:s3cr%40t@db.example.com:5432/hr?password=q1';

  it('puts the stored password back where the mask is, keeping the other edits', () => {
    expect(restoreMaskedSecrets(maskConnectionString(stored), stored)).toEqual({ value: stored, unresolved: false });
    expect(restoreMaskedSecrets('postgres://meridian:*****@db2.example.com/hr2?password=*****', stored)).toEqual({
      value: 'postgres://meridian:s3cr%40t@db2.example.com/hr2?password=q1',
      unresolved: false,
    });
  });

  it('keeps a new password as sent', () => {
    expect(restoreMaskedSecrets('postgres://meridian:new@db/hr', stored)).toEqual({
      value: 'postgres://meridian:new@db/hr',
      unresolved: false,
    });
  });

  it('reports a mask with nothing stored to restore', () => {
    expect(restoreMaskedSecrets('postgres://u:*****@db/hr', null)).toEqual({ value: 'postgres://u:*****@db/hr', unresolved: true });
    expect(restoreMaskedSecrets('postgres://u:*****@db/hr', 'postgres://u@db/hr').unresolved).toBe(true);
  });

  it('tells whether a string carries the mask', () => {
    expect(hasMaskedSecret(`postgres://u:${SECRET_MASK}@db/hr`)).toBe(true);
    expect(hasMaskedSecret('postgres://u:pw@db/hr')).toBe(false);
  });
});

describe('sqlConnectionStringProblem', () => {
  it.each([
    'postgres://u:p@db/hr',
    'postgresql://db:5432/hr',
    'mysql://u:p@db:3306/app',
    'MariaDB://u@db/app',
    'postgres://u:p@[::1]:5432/hr',
  ])('accepts %s', (value) => {
    expect(sqlConnectionStringProblem(value)).toBeNull();
  });
  it.each<[string, RegExp]>([
    ['mssql://u:p@db/hr', /scheme 'mssql' is not supported/],
    ['https://db/hr', /scheme 'https' is not supported/],
    ['Host=db;Password=p', /must be a postgres:\/\//],
    ['postgres:///hr', /names no host/],
    ['postgres://u:p w@db/hr', /spaces or control characters/],
    [`postgres://db/${'x'.repeat(2000)}`, /at most 2000/],
  ])('refuses %s', (value, message) => {
    const problem = sqlConnectionStringProblem(value);
    expect(problem).toMatch(message);
  });
});
