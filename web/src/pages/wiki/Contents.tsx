import { useEffect, useState } from 'react';

interface Heading {
  id: string;
  text: string;
  level: number;
}

/** "On this page": the article's h2/h3 headings, read from the rendered DOM so the anchors always match. */
export function Contents({ articleId, version }: { articleId: string; version: unknown }) {
  const [headings, setHeadings] = useState<Heading[]>([]);
  useEffect(() => {
    const root = document.getElementById(articleId);
    const found = [...(root?.querySelectorAll<HTMLHeadingElement>('h2[id], h3[id]') ?? [])].map((h) => ({
      id: h.id,
      text: h.textContent ?? '',
      level: Number(h.tagName[1]),
    }));
    setHeadings(found);
  }, [articleId, version]);
  if (headings.length < 2) return null;
  return (
    <nav aria-labelledby="contents-title" className="aside-section contents">
      <h2 id="contents-title">On this page</h2>
      <ol>
        {headings.map((h) => (
          <li key={h.id} className={`level-${h.level}`}>
            <a href={`#${h.id}`}>{h.text}</a>
          </li>
        ))}
      </ol>
    </nav>
  );
}
