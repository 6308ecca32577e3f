/** Tiny DOM helpers: look elements up by id with a type, build elements with text (never HTML). */

/** The element with `id`, which must exist and be of `type`. */
export function byId<T extends HTMLElement>(id: string, type: { new (): T }): T {
  const el = document.getElementById(id);
  if (!(el instanceof type)) throw new Error(`#${id} missing or not a ${type.name}`);
  return el;
}

/** Create an element with a class and text content (text is set as text, never parsed). */
export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  className = "",
  text?: string,
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

/**
 * Offer a share link: show it in the page's #share-url field and copy it to the clipboard;
 * `say` tells the learner which of the two to use (a browser may refuse the clipboard).
 */
export async function offerLink(link: string, say: (message: string) => void): Promise<void> {
  const field = byId("share-url", HTMLInputElement);
  field.value = link;
  field.hidden = false;
  try {
    await navigator.clipboard.writeText(link);
    say("Link copied");
  } catch {
    field.select();
    say("Copy the link from the field");
  }
}
