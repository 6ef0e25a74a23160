import { Logger } from '@nestjs/common';
import { armShutdownDeadline } from './shutdown';

describe('armShutdownDeadline', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => {
    jest.useRealTimers();
    jest.restoreAllMocks();
  });

  it('exits 1 and says why when closing has not ended the process by the deadline', () => {
    const exit = jest.spyOn(process, 'exit').mockImplementation((() => undefined) as never);
    const logger = new Logger('test');
    const error = jest.spyOn(logger, 'error').mockImplementation(() => undefined);
    jest.spyOn(logger, 'log').mockImplementation(() => undefined);

    armShutdownDeadline(8_000, 'launcher gone', logger);
    jest.advanceTimersByTime(7_999);
    expect(exit).not.toHaveBeenCalled();
    jest.advanceTimersByTime(1);
    expect(exit).toHaveBeenCalledWith(1);
    expect(error).toHaveBeenCalledWith('shutdown did not finish within 8000 ms; exiting');
  });

  it('says it through any logger with log and error (the gateway passes its pino logger)', () => {
    jest.spyOn(process, 'exit').mockImplementation((() => undefined) as never);
    const lines: string[] = [];
    armShutdownDeadline(1_000, 'SIGTERM', { log: (message) => lines.push(`log ${message}`), error: (message) => lines.push(`error ${message}`) });
    jest.advanceTimersByTime(1_000);
    expect(lines).toEqual(['log SIGTERM: closing (deadline 1000 ms)', 'error shutdown did not finish within 1000 ms; exiting']);
  });
});
