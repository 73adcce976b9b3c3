import { ArgumentsError, parseArguments } from './step-arguments';

describe('parseArguments', () => {
  it.each<[string | null, string[]]>([
    [null, []],
    ['', []],
    ['   ', []],
    ['a b  c', ['a', 'b', 'c']],
    ['  --from 2024-01-01\t--verbose\n', ['--from', '2024-01-01', '--verbose']],
    ['"hello world" x', ['hello world', 'x']],
    ["'single quoted' x", ['single quoted', 'x']],
    ['--name="Jane Doe"', ['--name=Jane Doe']],
    ['a"b c"d', ['ab cd']],
    ['"say \\"hi\\"" \\\\', ['say "hi"', '\\']],
    ['\'no \\escapes "here"\'', ['no \\escapes "here"']],
    ['"" \'\' x', ['', '', 'x']],
    ['one\\ arg', ['one arg']],
    ['"C:\\path\\file"', ['C:\\path\\file']],
  ])('splits %p into %p', (text, expected) => {
    expect(parseArguments(text)).toEqual(expected);
  });

  it.each<[string, string[]]>([
    ['a; rm -rf /', ['a;', 'rm', '-rf', '/']],
    ['x && y || z', ['x', '&&', 'y', '||', 'z']],
    ['$(whoami) `id` ${HOME}', ['$(whoami)', '`id`', '${HOME}']],
    ['> out.txt < in.txt | tee', ['>', 'out.txt', '<', 'in.txt', '|', 'tee']],
    ['*.csv ~ $PATH', ['*.csv', '~', '$PATH']],
    ['"$(id)"', ['$(id)']],
  ])('gives shell syntax no meaning: %p', (text, expected) => {
    expect(parseArguments(text)).toEqual(expected);
  });

  it.each([
    ['"unterminated', /unterminated double quote \(opened at character 1\)/],
    ["ok 'open", /unterminated single quote \(opened at character 4\)/],
    ['trailing\\', /lone backslash/],
    ['nul\0byte', /NUL/],
  ])('refuses %p', (text, message) => {
    expect(() => parseArguments(text)).toThrow(ArgumentsError);
    expect(() => parseArguments(text)).toThrow(message);
  });
});
