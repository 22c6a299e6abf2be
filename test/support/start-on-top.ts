/**
 * Starts `startTop()` on something already running that `stopUnder` stops: the result's `close` closes the top,
 * then stops what is under it; a top that fails to start stops it at once, and the start's error is thrown on.
 */
export async function startOnTop<T extends { close(): Promise<void> }>(
  stopUnder: () => Promise<void>,
  startTop: () => Promise<T>,
): Promise<T> {
  let top: T;
  try {
    top = await startTop();
  } catch (err) {
    await stopUnder();
    throw err;
  }
  return {
    ...top,
    async close() {
      await top.close();
      await stopUnder();
    },
  };
}
