/** Markdown for prose cells: the blocks and inline parts lessons use; HTML is never HTML. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { inlineText, parseInline, parseMarkdown } from "../src/notebook/markdown";

test("headings, paragraphs, lists and fenced blocks", () => {
  const blocks = parseMarkdown("# Title\n\nA paragraph\nwrapped.\n\n- one\n- two\n  continued\n\n3. three\n4. four\n\n```text\nstep 0: loss=36\n```\n---\n> quoted");
  assert.deepEqual(
    blocks.map((b) => b.kind),
    ["heading", "paragraph", "list", "list", "code", "rule", "quote"],
  );
  const [heading, paragraph, bullets, numbers, code] = blocks;
  assert.equal(heading?.kind === "heading" && heading.level, 1);
  assert.equal(paragraph?.kind === "paragraph" && inlineText(paragraph.children), "A paragraph\nwrapped.");
  assert.deepEqual(bullets?.kind === "list" && bullets.items.map(inlineText), ["one", "two continued"]);
  assert.equal(numbers?.kind === "list" && numbers.ordered && numbers.start, 3);
  assert.deepEqual(code?.kind === "code" && [code.lang, code.text], ["text", "step 0: loss=36"]);
});

test("code spans, strong and emphasis; a lone star is a multiplication", () => {
  assert.deepEqual(parseInline("**bold** and *em* and `x * y`"), [
    { kind: "strong", children: [{ kind: "text", text: "bold" }] },
    { kind: "text", text: " and " },
    { kind: "em", children: [{ kind: "text", text: "em" }] },
    { kind: "text", text: " and " },
    { kind: "code", text: "x * y" },
  ]);
  // the lessons' prose: y = x * x + 3 * x, requires_grad=True, grad_fn=<AddmmBackward0>
  for (const text of ["y = x * x + 3 * x", "requires_grad=True and zero_grad()", "grad_fn=<AddmmBackward0>"]) {
    assert.deepEqual(parseInline(text), [{ kind: "text", text }]);
  }
});

test("HTML is text, and links go only where they are safe", () => {
  const html = "<script>alert(1)</script><img src=x onerror=alert(1)>";
  assert.deepEqual(parseMarkdown(html), [{ kind: "paragraph", children: [{ kind: "text", text: html }] }]);
  assert.deepEqual(parseInline("[docs](https://pytorch.org/docs)"), [{ kind: "link", href: "https://pytorch.org/docs", children: [{ kind: "text", text: "docs" }] }]);
  // javascript: and data: URLs, and other hosts' protocol-relative ones, are never links
  for (const href of ["javascript:alert(1)", "javascript:void0", "data:text/html,<b>x</b>", "//evil.example"]) {
    const parts = parseInline(`[click](${href})`);
    assert.ok(parts.every((p) => p.kind !== "link"), href);
    assert.match(inlineText(parts), /click/);
  }
});

test("a backslash escapes markdown", () => {
  assert.deepEqual(parseInline("\\*not em\\*"), [{ kind: "text", text: "*not em*" }]);
});
