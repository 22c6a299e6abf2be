/**
 * Moves keyboard focus to the element with `id` once the change that shows it has been rendered (the next frame).
 * Used after an action replaces or removes the control that had focus, which would otherwise drop it to `<body>`;
 * a heading or message that takes focus this way carries `tabIndex={-1}`.
 */
export function focusSoon(id: string): void {
  requestAnimationFrame(() => document.getElementById(id)?.focus());
}
