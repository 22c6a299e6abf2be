/** A configuration problem: names the setting; `pksd` prints it on one line and exits 2. */
export class ConfigError extends Error {
  readonly setting: string;
  readonly reason: string;

  constructor(setting: string, reason: string) {
    super(`${setting}: ${reason}`);
    this.name = 'ConfigError';
    this.setting = setting;
    this.reason = reason;
  }
}
