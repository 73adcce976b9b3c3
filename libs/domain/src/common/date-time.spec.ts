import { normaliseDateTime, parseDateTime } from './date-time';

describe('parseDateTime (the one date/time parser)', () => {
  it.each([
    ['2025-01-15', '2025-01-15T00:00:00.000Z'],
    ['2025-01-15T10:30', '2025-01-15T10:30:00.000Z'],
    ['2025-01-15T10:30:00', '2025-01-15T10:30:00.000Z'],
    ['2025-01-15 10:30:00.123', '2025-01-15T10:30:00.123Z'],
    ['2025-01-15T10:30:00+02:00', '2025-01-15T08:30:00.000Z'],
    ['2025-01-15T10:30:00-0130', '2025-01-15T12:00:00.000Z'],
    ['2024-02-29', '2024-02-29T00:00:00.000Z'],
    ['20250115103000.0Z', '2025-01-15T10:30:00.000Z'],
    ['  2025-01-15T10:30:00Z ', '2025-01-15T10:30:00.000Z'],
  ])('reads %s as %s (a time without an offset is UTC)', (text, iso) => {
    expect(parseDateTime(text)?.toISOString()).toBe(iso);
    expect(normaliseDateTime(text)).toBe(iso);
  });

  it.each([
    '2025-02-30',
    '2023-02-29',
    '2025-13-01',
    '2025-01-15T24:00:00',
    '2025-01-15T10:60',
    'yesterday',
    '1',
    '',
    '2025-1-5',
    '2025-01-15T10:30:00+19:00',
  ])('refuses %p (impossible dates never roll over)', (text) => {
    expect(parseDateTime(text)).toBeNull();
    expect(normaliseDateTime(text)).toBeNull();
  });
});
