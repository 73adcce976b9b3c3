import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveUnderRoot, ScriptPathError } from './script-paths';

describe('resolveUnderRoot', () => {
  let base: string;
  let root: string;

  beforeAll(() => {
    base = mkdtempSync(join(tmpdir(), 'meridian-scripts-'));
    root = join(base, 'root');
    mkdirSync(join(root, 'bin'), { recursive: true });
    writeFileSync(join(root, 'bin', 'run.sh'), '#!/bin/sh\n');
    writeFileSync(join(base, 'outside.sh'), '#!/bin/sh\n');
    mkdirSync(join(base, 'elsewhere'));
    writeFileSync(join(base, 'elsewhere', 'x.sh'), '');
    symlinkSync(join(base, 'outside.sh'), join(root, 'bin', 'escape.sh'));
    symlinkSync(join(base, 'elsewhere'), join(root, 'linked-dir'));
    symlinkSync(join(root, 'bin', 'run.sh'), join(root, 'inside-link.sh'));
  });
  afterAll(() => rmSync(base, { recursive: true, force: true }));

  it('resolves files and directories under the root to their real paths', async () => {
    await expect(resolveUnderRoot(root, 'bin/run.sh')).resolves.toBe(join(root, 'bin', 'run.sh'));
    await expect(resolveUnderRoot(root, ' ./bin/run.sh ')).resolves.toBe(join(root, 'bin', 'run.sh'));
    await expect(resolveUnderRoot(root, 'inside-link.sh')).resolves.toBe(join(root, 'bin', 'run.sh'));
    await expect(resolveUnderRoot(root, 'bin', { kind: 'directory' })).resolves.toBe(join(root, 'bin'));
    await expect(resolveUnderRoot(root, '.', { kind: 'directory' })).resolves.toBe(root);
  });

  it.each<[string, { kind?: 'file' | 'directory' } | undefined, RegExp]>([
    ['/etc/passwd', undefined, /not absolute/],
    ['../outside.sh', undefined, /"\.\." segments/],
    ['bin/../../outside.sh', undefined, /"\.\." segments/],
    ['', undefined, /must not be empty/],
    ['bin/missing.sh', undefined, /file "bin\/missing.sh" does not exist under the scripts root/],
    ['bin/escape.sh', undefined, /resolves \(through a symbolic link\) outside the scripts root/],
    ['linked-dir/x.sh', undefined, /outside the scripts root/],
    ['bin', undefined, /is not a file/],
    ['bin/run.sh', { kind: 'directory' }, /is not a directory/],
    ['.', undefined, /names the scripts root itself/],
  ])('refuses %j', async (relative, options, message) => {
    const attempt = resolveUnderRoot(root, relative, options);
    await expect(attempt).rejects.toBeInstanceOf(ScriptPathError);
    await expect(attempt).rejects.toThrow(message);
  });

  it('says so when the scripts root itself is missing', async () => {
    await expect(resolveUnderRoot(join(base, 'nope'), 'x.sh')).rejects.toThrow(
      /scripts root .* does not exist on this host \(MERIDIAN_SCRIPTS_ROOT\)/,
    );
  });
});
