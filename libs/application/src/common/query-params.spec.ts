import { prefixPattern } from './query-params';

describe('query parameters', () => {
  it.each([
    ['ada', 'ada%'],
    ['100%', '100\\%%'],
    ['a_b', 'a\\_b%'],
    ['C:\\x', 'C:\\\\x%'],
  ])('prefixPattern(%j) is %j', (text, pattern) => {
    expect(prefixPattern(text)).toBe(pattern);
  });
});
