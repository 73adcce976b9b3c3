import { parseRunType, relativeFilePathProblem, requiredCapability, RunType, runTypeUsesConnector } from './connected-system.enums';

describe('run types', () => {
  it.each([
    [RunType.FullImport, 'fullImport'],
    [RunType.DeltaImport, 'deltaImport'],
    [RunType.Export, 'export'],
    [RunType.FullSynchronisation, null],
    [RunType.DeltaSynchronisation, null],
  ])('%s needs %s', (runType, capability) => {
    expect(requiredCapability(runType)).toBe(capability);
    expect(runTypeUsesConnector(runType)).toBe(capability !== null);
  });

  it('parses names case-insensitively', () => {
    expect(parseRunType('fullimport')).toBe(RunType.FullImport);
    expect(parseRunType('Sync')).toBeUndefined();
    expect(parseRunType(3)).toBeUndefined();
  });
});

describe('relativeFilePathProblem', () => {
  it.each(['hr.csv', 'exports/people.csv', 'a/b/c.d.csv', 'dots..in-name.csv', './hr.csv'])('accepts %s', (p) => {
    expect(relativeFilePathProblem(p)).toBeNull();
  });

  it.each([
    ['', /empty/],
    ['   ', /empty/],
    ['/etc/passwd', /relative/],
    ['\\\\server\\share\\x.csv', /relative/],
    ['C:\\data\\x.csv', /relative/],
    ['../secret.csv', /\.\./],
    ['a/../../x.csv', /\.\./],
    ['a\\..\\x.csv', /\.\./],
    ['a\u0000b', /control/],
    ['x'.repeat(1001), /1000/],
  ])('refuses %j', (p, message) => {
    expect(relativeFilePathProblem(p)).toMatch(message);
  });
});
