/**
 * The browser globals that code passed to `page.evaluate` uses. The root tsconfig compiles for Node (no DOM lib),
 * so in-page callbacks write `(globalThis as unknown as PageGlobals)`: a cast only, nothing of this module is
 * captured by the serialised function.
 */
export interface PageGlobals {
  document: {
    addEventListener(
      type: 'securitypolicyviolation',
      listener: (e: { violatedDirective: string; blockedURI: string; sourceFile: string; lineNumber: number }) => void,
    ): void;
    querySelectorAll(selector: string): { length: number };
    readonly readyState: string;
    readonly documentElement: { readonly scrollWidth: number; readonly clientWidth: number };
  };
  localStorage: { getItem(key: string): string | null; setItem(key: string, value: string): void };
  requestAnimationFrame(callback: (time: number) => void): number;
  scrollBy(x: number, y: number): void;
  readonly scrollY: number;
  readonly innerHeight: number;
  [name: string]: unknown;
}
