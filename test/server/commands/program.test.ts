import { describe, expect, it } from 'vitest';
import { pksd } from '../../support/cli.js';

/** The subcommands in the order `pksd --help` lists them. */
const SUBCOMMANDS = ['serve', 'config', 'pat', 'users', 'papers', 'storage', 'superuser', 'db', 'wiki', 'scholarly'];

describe('pksd program (a run of one subcommand loads that one alone)', () => {
  it('help lists every subcommand, in order, with the version command last', async () => {
    for (const argv of [['--help'], ['help']]) {
      const { code, stdout } = await pksd(argv);
      expect(code).toBe(0);
      const listed = stdout
        .split('\n')
        .map((line) => /^ {2}(\S+)/.exec(line)?.[1])
        .filter((name): name is string => name !== undefined && !name.startsWith('-'));
      expect(listed).toEqual([...SUBCOMMANDS, 'version', 'help']);
    }
  });

  it.each(SUBCOMMANDS)(
    '`pksd %s --help` is the help `pksd help %s` prints with every subcommand loaded',
    async (name) => {
      const alone = await pksd([name, '--help']);
      const withAll = await pksd(['help', name]);
      expect(alone.code).toBe(0);
      expect(alone.stdout).toContain(`Usage: pksd ${name} `);
      expect(alone).toEqual(withAll);
    },
  );

  it('an unknown subcommand is a usage error that suggests the nearest one', async () => {
    const run = await pksd(['serv']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("error: unknown command 'serv'");
    expect(run.stderr).toContain('(Did you mean serve?)');
  });
});
