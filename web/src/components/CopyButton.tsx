import { useState } from 'react';

/** Copies `text` to the clipboard and says so. */
export function CopyButton({ text, label = 'Copy' }: { text: string; label?: string }) {
  const [done, setDone] = useState<'copied' | 'failed' | null>(null);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setDone('copied');
    } catch {
      setDone('failed');
    }
  };
  return (
    <>
      <button type="button" className="button" onClick={() => void copy()}>
        {label}
      </button>
      <span role="status" className="copy-status">
        {done === 'copied'
          ? 'Copied to the clipboard.'
          : done === 'failed'
            ? 'Copy failed: select the text and copy it.'
            : ''}
      </span>
    </>
  );
}
