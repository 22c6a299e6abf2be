/**
 * `work`'s result, or `onExpiry()`'s once `ms` passed first. The work itself goes on (nothing here can stop it);
 * the timer is cleared as soon as either side wins, so a settled race keeps no process alive.
 */
export async function settleWithin<T, E>(work: Promise<T>, ms: number, onExpiry: () => E): Promise<T | E> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<E>((resolve) => {
    timer = setTimeout(() => resolve(onExpiry()), ms);
  });
  try {
    return await Promise.race([work, expired]);
  } finally {
    clearTimeout(timer);
  }
}
