import { type CsvEvent, CsvParser } from './csv-parser';

/** Parses `text` pushed in the given pieces. */
function parse(pieces: string[], delimiter = ',', quote = '"'): CsvEvent[] {
  const parser = new CsvParser(delimiter, quote);
  const out: CsvEvent[] = [];
  for (const piece of pieces) parser.push(piece, out);
  parser.end(out);
  return out;
}

const records = (events: CsvEvent[]) => events.map((e) => (e.kind === 'record' ? [e.line, ...e.values] : [e.line, e.code]));

describe('CsvParser', () => {
  it('splits records on LF, CRLF and CR, skips empty lines and numbers records by the line they start on', () => {
    expect(records(parse(['a,b\n\nc,d\r\ne,f\r\r\ng,h\n']))).toEqual([
      [1, 'a', 'b'],
      [3, 'c', 'd'],
      [4, 'e', 'f'],
      [6, 'g', 'h'],
    ]);
  });

  it('keeps empty fields, including a last one after a trailing delimiter, with or without a final line break', () => {
    expect(records(parse([',,\n1,,\n2,']))).toEqual([
      [1, '', '', ''],
      [2, '1', '', ''],
      [3, '2', ''],
    ]);
  });

  it('reads quoted fields: delimiters, doubled quotes and line breaks inside, lines counted after them', () => {
    expect(records(parse(['id,note\n1,"a, ""b""\nc\r\nd"\n2,"",x\n3,"\r"\n4,z']))).toEqual([
      [1, 'id', 'note'],
      [2, '1', 'a, "b"\nc\r\nd'],
      [5, '2', '', 'x'],
      [6, '3', '\r'],
      [8, '4', 'z'],
    ]);
  });

  it('uses the delimiter and quote it is given', () => {
    expect(records(parse(['1\t\'a\tb\'\t"c"\n'], '\t', "'"))).toEqual([[1, '1', 'a\tb', '"c"']]);
  });

  it('reports bad quoting at the line the record starts on and goes on after the line where it was found', () => {
    const events = parse(['1,ok\n2,x"y\n3,"a"b,c\n4,ok\n5,"open\n6,"shut"\n7,ok\n8,"never\n9,closed\n']);
    expect(records(events)).toEqual([
      [1, '1', 'ok'],
      [2, 'CSV_INVALID_OPENING_QUOTE'],
      [3, 'CSV_INVALID_CLOSING_QUOTE'],
      [4, '4', 'ok'],
      [5, 'CSV_INVALID_CLOSING_QUOTE'],
      [7, '7', 'ok'],
      [8, 'CSV_QUOTE_NOT_CLOSED'],
    ]);
    const messages = events.filter((e) => e.kind === 'error').map((e) => e.message);
    expect(messages[0]).toMatch(/^Invalid opening quote: .* field 2 .*\(line 2\)$/);
    expect(messages[2]).toMatch(/^Invalid closing quote: field 2 is followed by "s" .*\(line 6\)$/);
    expect(messages[3]).toMatch(/^Quote not closed: field 2/);
  });

  it('gives the same records and errors however the text is cut into pieces', () => {
    const text = 'id,"na,me"\r\n1,"a\r\nb"\r\n\r\n2,"x""y"\r3,z"\n4,"q"w\n5,""\n6,last,';
    const whole = parse([text]);
    expect(whole.length).toBe(7);
    for (let cut = 0; cut <= text.length; cut++) expect(parse([text.slice(0, cut), text.slice(cut)])).toEqual(whole);
    expect(parse([...text])).toEqual(whole);
  });

  it('refuses a delimiter or quote that is not one character, or the same character for both', () => {
    expect(() => new CsvParser(';;', '"')).toThrow(TypeError);
    expect(() => new CsvParser(',', '')).toThrow(TypeError);
    expect(() => new CsvParser(',', ',')).toThrow(TypeError);
  });
});
