import { useEffect } from 'react';

/** Sets the document title ("<title> · pks"); each page names itself for tabs, history and screen readers. */
export function useTitle(title: string): void {
  useEffect(() => {
    document.title = title ? `${title} · pks` : 'pks';
  }, [title]);
}
