/**
 * A wide table or formula scrolls sideways on a narrow screen; keyboard users must be able to reach it to scroll
 * (WCAG 2.1.1). Every such region that actually overflows gets `tabindex="0"`, re-checked after DOM changes and
 * resizes (batched to one check per animation frame).
 */
const SELECTOR = '.table-wrap, .katex-display';

function mark(): void {
  for (const el of document.querySelectorAll<HTMLElement>(SELECTOR)) {
    const overflows = el.scrollWidth > el.clientWidth + 1;
    if (overflows && el.tabIndex !== 0) el.tabIndex = 0;
    else if (!overflows && el.hasAttribute('tabindex')) el.removeAttribute('tabindex');
  }
}

export function keepScrollRegionsFocusable(root: Node): void {
  let queued = false;
  const schedule = () => {
    if (queued) return;
    queued = true;
    requestAnimationFrame(() => {
      queued = false;
      mark();
    });
  };
  new MutationObserver(schedule).observe(root, { childList: true, subtree: true });
  window.addEventListener('resize', schedule);
}
