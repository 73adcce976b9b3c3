import type { Logger } from '../logging/logger';
import { TokenRejectionLog } from './token-rejection.log';

function capturingLogger(): { logger: Logger; messages: string[] } {
  const messages: string[] = [];
  const logger = { log: (entry: { message: string }) => messages.push(entry.message) } as unknown as Logger;
  return { logger, messages };
}

describe('TokenRejectionLog', () => {
  it('writes at most the limit per window and reports the rest when the window ends, with no further rejection', async () => {
    const { logger, messages } = capturingLogger();
    const log = new TokenRejectionLog(logger, Date.now, 3, 100);
    for (let i = 0; i < 8; i++) log.write('the token has expired', { kid: 'k1' });
    expect(messages).toEqual(Array(3).fill('Access token rejected: the token has expired'));
    await new Promise((r) => setTimeout(r, 200));
    expect(messages.slice(3)).toEqual(['5 further access token rejections suppressed']);
  });

  it('reports the suppressed count once when the next window opens before the timer', () => {
    const { logger, messages } = capturingLogger();
    let now = 0;
    const log = new TokenRejectionLog(logger, () => now, 1, 60_000);
    log.write('a', {});
    log.write('b', {});
    log.write('c', {});
    now = 60_000;
    log.write('d', {});
    expect(messages).toEqual(['Access token rejected: a', '2 further access token rejections suppressed', 'Access token rejected: d']);
  });
});
