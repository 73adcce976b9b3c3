import { formatTimeSpan, parseTimeSpan } from './timespan';

describe('timespan', () => {
  it.each([
    ['00:05:00', 300_000],
    ['90.00:00:00', 90 * 86_400_000],
    ['1.02:03:04', ((26 * 60 + 3) * 60 + 4) * 1000],
    ['00:00:01.5', 1500],
  ])('parses %s', (text, ms) => expect(parseTimeSpan(text)).toBe(ms));

  it.each(['', '5', '24:00:00', '00:60:00', 'abc', '1.2.3', '-00:00:01'])('rejects %p', (text) => {
    expect(parseTimeSpan(text)).toBeNull();
  });

  it.each([
    [300_000, '00:05:00'],
    [90 * 86_400_000, '90.00:00:00'],
    [1500, '00:00:01.500'],
  ])('formats %d as %s', (ms, text) => expect(formatTimeSpan(ms)).toBe(text));

  it('round-trips', () => {
    for (const ms of [0, 1000, 59_000, 3_600_000, 86_399_000, 86_400_000, 1_234_567_000]) {
      expect(parseTimeSpan(formatTimeSpan(ms))).toBe(ms);
    }
  });
});
