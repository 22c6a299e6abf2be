import { useEffect, useState } from 'react';

/** The current time in ms, renewed every `everyMs` while `running` (a countdown's clock). */
export function useNow(everyMs: number, running = true): number {
  const [now, setNow] = useState(Date.now);
  useEffect(() => {
    if (!running) return;
    const timer = setInterval(() => setNow(Date.now()), everyMs);
    return () => clearInterval(timer);
  }, [everyMs, running]);
  return now;
}
