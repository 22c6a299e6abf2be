import { describe, expect, it } from 'vitest';
import { exitCodeOf, exitWith } from '../../../src/server/commands/exit-codes.js';
import { ExitError, type CommandIO } from '../../../src/server/commands/io.js';
import {
  ConflictError,
  ForbiddenError,
  GoneError,
  InvalidInputError,
  NotFoundError,
  RateLimitedError,
  TooLargeError,
  UnauthenticatedError,
  UnavailableError,
  UnsupportedMediaTypeError,
  UpstreamError,
} from '../../../src/shared/domain-errors.js';

describe('pksd exit codes of the domain errors (CONTRACT §15: 1 runtime failure, 2 usage)', () => {
  it.each([
    [new InvalidInputError('bad'), 2],
    [new TooLargeError('big'), 2],
    [new UnsupportedMediaTypeError('type'), 2],
    [new UnauthenticatedError('who'), 1],
    [new ForbiddenError('no'), 1],
    [new NotFoundError(), 1],
    [new ConflictError('taken'), 1],
    [new GoneError('gone'), 1],
    [new RateLimitedError('slow'), 1],
    [new UpstreamError('object_store', 'object store error: x'), 1],
    [new UpstreamError('graph', 'graph down'), 1],
    [new UnavailableError('later'), 1],
    [new Error('anything else'), 1],
  ])('%s → %i', (err, code) => {
    expect(exitCodeOf(err)).toBe(code);
  });

  it('exitWith prints `pksd: [<context>: ]<message>` and ends with the code; an ExitError passes through', () => {
    let stderr = '';
    const io = { stdout: () => undefined, stderr: (t: string) => (stderr += t) } as unknown as CommandIO;
    expect(() => exitWith(io, new InvalidInputError('name required'))).toThrow(expect.objectContaining({ code: 2 }));
    expect(() => exitWith(io, new UpstreamError('graph', 'unreachable'), 'papers sync failed')).toThrow(
      expect.objectContaining({ code: 1 }),
    );
    expect(stderr).toBe('pksd: name required\npksd: papers sync failed: unreachable\n');
    const done = new ExitError(7);
    expect(() => exitWith(io, done)).toThrow(done);
    expect(stderr).toBe('pksd: name required\npksd: papers sync failed: unreachable\n');
  });
});
