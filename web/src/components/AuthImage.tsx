import { useEffect, useState } from 'react';
import { apiFetch } from '../api/client';

/** An image from an authenticated API route, shown through a `blob:` URL (a plain `<img src>` sends no token). */
export function AuthImage({ src, alt, ...rest }: { src: string; alt: string; className?: string; title?: string }) {
  const [url, setUrl] = useState<string | null>(null);
  const [failed, setFailed] = useState(false);
  useEffect(() => {
    let objectUrl: string | null = null;
    let cancelled = false;
    apiFetch(src, { headers: { Accept: 'image/*' } })
      .then(async (r) => {
        if (!r.ok) throw new Error(String(r.status));
        const blob = await r.blob();
        if (cancelled) return;
        objectUrl = URL.createObjectURL(blob);
        setUrl(objectUrl);
      })
      .catch(() => !cancelled && setFailed(true));
    return () => {
      cancelled = true;
      if (objectUrl) URL.revokeObjectURL(objectUrl);
    };
  }, [src]);
  if (failed) return <span className="image-missing">[image not available: {alt || src.split('/').pop()}]</span>;
  if (!url) return <span className="image-loading" role="img" aria-label={`${alt || 'figure'} (loading)`} />;
  return <img src={url} alt={alt} {...rest} />;
}
