/**
 * Markdown for a notebook's prose cells, rendered safely: the text is parsed into a small tree
 * (headings, paragraphs, lists, quotes, fenced code, rules; code spans, emphasis, links) and
 * built with `createElement` and `textContent`, so no HTML in a cell, a lesson or an imported
 * notebook is ever parsed: `<script>` reads as the text `<script>`. Links go only to http(s),
 * mailto and same-page addresses. `parseMarkdown` is DOM-free (its tests run in Node).
 */

export type Inline =
  | { kind: "text"; text: string }
  | { kind: "code"; text: string }
  | { kind: "strong" | "em"; children: Inline[] }
  | { kind: "link"; href: string; children: Inline[] };

export type Block =
  | { kind: "heading"; level: number; children: Inline[] }
  | { kind: "paragraph"; children: Inline[] }
  | { kind: "code"; lang: string; text: string }
  | { kind: "list"; ordered: boolean; start: number; items: Inline[][] }
  | { kind: "quote"; children: Block[] }
  | { kind: "rule" };

const HEADING = /^(#{1,6})\s+(.*?)\s*#*\s*$/;
const FENCE = /^\s{0,3}(`{3,}|~{3,})\s*([\w+-]*)/;
const BULLET = /^\s{0,3}[-*+]\s+(.*)$/;
const ORDERED = /^\s{0,3}(\d{1,9})[.)]\s+(.*)$/;
const RULE = /^\s{0,3}([-*_])(\s*\1){2,}\s*$/;
const QUOTE = /^\s{0,3}>\s?(.*)$/;
/** Where a link may go: the web, mail, or a place on this site; nothing that runs code. */
const SAFE_HREF = /^(https?:\/\/|mailto:|#|\/(?!\/))/i;

/** The blocks of `text` (CommonMark's common subset; anything else reads as text). */
export function parseMarkdown(text: string): Block[] {
  const lines = text.replace(/\r\n?/g, "\n").split("\n");
  const blocks: Block[] = [];
  let i = 0;
  const blank = (line: string | undefined) => line === undefined || line.trim() === "";
  while (i < lines.length) {
    const line = lines[i] ?? "";
    if (blank(line)) {
      i++;
      continue;
    }
    const fence = FENCE.exec(line);
    if (fence) {
      const marker = fence[1] ?? "```";
      const body: string[] = [];
      i++;
      while (i < lines.length && !(lines[i] ?? "").trimStart().startsWith(marker)) body.push(lines[i++] ?? "");
      i++; // the closing fence (or the end)
      blocks.push({ kind: "code", lang: fence[2] ?? "", text: body.join("\n") });
      continue;
    }
    const heading = HEADING.exec(line);
    if (heading) {
      blocks.push({ kind: "heading", level: (heading[1] ?? "#").length, children: parseInline(heading[2] ?? "") });
      i++;
      continue;
    }
    if (RULE.test(line)) {
      blocks.push({ kind: "rule" });
      i++;
      continue;
    }
    if (QUOTE.test(line)) {
      const inner: string[] = [];
      while (i < lines.length && QUOTE.test(lines[i] ?? "")) inner.push(QUOTE.exec(lines[i++] ?? "")?.[1] ?? "");
      blocks.push({ kind: "quote", children: parseMarkdown(inner.join("\n")) });
      continue;
    }
    const ordered = ORDERED.exec(line);
    if (ordered || BULLET.test(line)) {
      const items: string[] = [];
      const pattern = ordered ? ORDERED : BULLET;
      while (i < lines.length) {
        const current = lines[i] ?? "";
        const item = pattern.exec(current);
        if (item) items.push(item[item.length - 1] ?? "");
        else if (!blank(current) && /^\s+/.test(current) && items.length) items[items.length - 1] += ` ${current.trim()}`;
        else break;
        i++;
      }
      blocks.push({ kind: "list", ordered: Boolean(ordered), start: ordered ? Number(ordered[1]) : 1, items: items.map(parseInline) });
      continue;
    }
    const paragraph: string[] = [];
    while (i < lines.length && !blank(lines[i]) && !startsBlock(lines[i] ?? "")) paragraph.push((lines[i++] ?? "").trim());
    blocks.push({ kind: "paragraph", children: parseInline(paragraph.join("\n")) });
  }
  return blocks;
}

function startsBlock(line: string): boolean {
  return FENCE.test(line) || HEADING.test(line) || RULE.test(line) || QUOTE.test(line) || BULLET.test(line) || ORDERED.test(line);
}

/** The inline parts of a block's text: code spans, **strong**, *em*, [links](https://…). */
export function parseInline(text: string): Inline[] {
  const out: Inline[] = [];
  let plain = "";
  const flush = () => {
    if (plain) out.push({ kind: "text", text: plain });
    plain = "";
  };
  let i = 0;
  while (i < text.length) {
    const c = text[i] ?? "";
    if (c === "\\" && i + 1 < text.length && /[!-/:-@[-`{-~]/.test(text[i + 1] ?? "")) {
      plain += text[i + 1];
      i += 2;
      continue;
    }
    if (c === "`") {
      const run = /^`+/.exec(text.slice(i))?.[0] ?? "`";
      const end = text.indexOf(run, i + run.length);
      if (end > 0) {
        flush();
        out.push({ kind: "code", text: text.slice(i + run.length, end).replace(/\n/g, " ").replace(/^ (.*\S.*) $/, "$1") });
        i = end + run.length;
        continue;
      }
      plain += run;
      i += run.length;
      continue;
    }
    if (c === "*") {
      const run = text.startsWith("**", i) ? "**" : "*";
      const after = text[i + run.length] ?? "";
      const end = after && !/\s/.test(after) ? closing(text, run, i + run.length) : -1;
      if (end > 0) {
        flush();
        out.push({ kind: run === "**" ? "strong" : "em", children: parseInline(text.slice(i + run.length, end)) });
        i = end + run.length;
        continue;
      }
      plain += run;
      i += run.length;
      continue;
    }
    if (c === "[") {
      const link = /^\[([^\]\n]+)\]\(([^()\s]+)\)/.exec(text.slice(i));
      if (link) {
        flush();
        const href = link[2] ?? "";
        const children = parseInline(link[1] ?? "");
        out.push(SAFE_HREF.test(href) ? { kind: "link", href, children } : { kind: "em", children });
        i += link[0].length;
        continue;
      }
    }
    plain += c;
    i++;
  }
  flush();
  return out;
}

/** Where the emphasis opened by `run` before `from` closes: a run not preceded by a space. */
function closing(text: string, run: string, from: number): number {
  for (let at = text.indexOf(run, from); at > 0; at = text.indexOf(run, at + 1)) {
    const before = text[at - 1] ?? "";
    const next = text[at + run.length] ?? "";
    if (at > from && !/\s/.test(before) && (run === "**" || next !== "*")) return at;
  }
  return -1;
}

/** The plain text of inline parts (headings' ids, tests). */
export function inlineText(parts: Inline[]): string {
  return parts.map((p) => (p.kind === "text" || p.kind === "code" ? p.text : inlineText(p.children))).join("");
}

// ---- rendering (DOM) ----------------------------------------------------------------------

function renderInline(parts: Inline[], parent: HTMLElement): void {
  for (const part of parts) {
    if (part.kind === "text") parent.append(part.text);
    else if (part.kind === "code") {
      const code = document.createElement("code");
      code.textContent = part.text;
      parent.append(code);
    } else if (part.kind === "link") {
      const a = document.createElement("a");
      a.href = part.href;
      if (!part.href.startsWith("#") && !part.href.startsWith("/")) {
        a.target = "_blank";
        a.rel = "noopener noreferrer";
      }
      renderInline(part.children, a);
      parent.append(a);
    } else {
      const el = document.createElement(part.kind === "strong" ? "strong" : "em");
      renderInline(part.children, el);
      parent.append(el);
    }
  }
}

/** The blocks as elements (text set as text, never parsed as HTML). */
export function renderMarkdown(blocks: Block[]): DocumentFragment {
  const fragment = document.createDocumentFragment();
  for (const block of blocks) {
    let el: HTMLElement;
    if (block.kind === "heading") {
      el = document.createElement(`h${Math.min(6, block.level + 1)}`); // the page has the h1
      renderInline(block.children, el);
    } else if (block.kind === "paragraph") {
      el = document.createElement("p");
      renderInline(block.children, el);
    } else if (block.kind === "code") {
      el = document.createElement("pre");
      const code = document.createElement("code");
      code.textContent = block.text;
      if (block.lang) code.dataset.lang = block.lang;
      el.append(code);
    } else if (block.kind === "list") {
      const list = document.createElement(block.ordered ? "ol" : "ul");
      if (block.ordered && block.start !== 1) (list as HTMLOListElement).start = block.start;
      for (const item of block.items) {
        const li = document.createElement("li");
        renderInline(item, li);
        list.append(li);
      }
      el = list;
    } else if (block.kind === "quote") {
      el = document.createElement("blockquote");
      el.append(renderMarkdown(block.children));
    } else {
      el = document.createElement("hr");
    }
    fragment.append(el);
  }
  return fragment;
}
