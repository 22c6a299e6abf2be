/**
 * A double's settings that a test changes while it runs: properties of the double that read and write its state's
 * fields live (a spread or `Object.assign` would copy the values once).
 */
export function withLiveState<T extends object, S extends object, K extends keyof S>(
  target: T,
  state: S,
  keys: readonly K[],
): T & Pick<S, K> {
  for (const key of keys) {
    Object.defineProperty(target, key, {
      enumerable: true,
      get: () => state[key],
      set: (value: S[K]) => {
        state[key] = value;
      },
    });
  }
  return target as T & Pick<S, K>;
}
