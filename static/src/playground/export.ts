/** Export the graph as SVG or PNG (styles inlined, so the file stands alone) and the run as JSON. */

function download(blob: Blob, filename: string): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement("a");
  link.href = url;
  link.download = filename;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/** CSS rules that style the graph, copied from the page's stylesheets. */
function graphCss(): string {
  const rules: string[] = [];
  for (const sheet of Array.from(document.styleSheets)) {
    if (!sheet.href?.includes("graph.css")) continue;
    for (const rule of Array.from(sheet.cssRules)) rules.push(rule.cssText);
  }
  return rules.join("\n");
}

/** A standalone copy of the graph SVG, fitted to its content. */
function standaloneSvg(svg: SVGSVGElement, size: { width: number; height: number }): string {
  const clone = svg.cloneNode(true) as SVGSVGElement;
  clone.setAttribute("xmlns", "http://www.w3.org/2000/svg");
  clone.setAttribute("width", String(Math.ceil(size.width)));
  clone.setAttribute("height", String(Math.ceil(size.height)));
  clone.setAttribute("viewBox", `0 0 ${Math.ceil(size.width)} ${Math.ceil(size.height)}`);
  clone.querySelector(".viewport")?.removeAttribute("transform");
  // Resolve the theme's custom properties so the file looks the same outside the page.
  const computed = getComputedStyle(svg);
  const vars: string[] = [];
  for (const name of Array.from(computed)) if (name.startsWith("--")) vars.push(`${name}:${computed.getPropertyValue(name)}`);
  const style = document.createElementNS("http://www.w3.org/2000/svg", "style");
  style.textContent = `svg{${vars.join(";")};background:${computed.backgroundColor}}\n${graphCss()}`;
  clone.insertBefore(style, clone.firstChild);
  return new XMLSerializer().serializeToString(clone);
}

export function exportSvg(svg: SVGSVGElement, size: { width: number; height: number }): void {
  download(new Blob([standaloneSvg(svg, size)], { type: "image/svg+xml" }), "autograd-graph.svg");
}

export async function exportPng(svg: SVGSVGElement, size: { width: number; height: number }): Promise<void> {
  const url = URL.createObjectURL(new Blob([standaloneSvg(svg, size)], { type: "image/svg+xml" }));
  try {
    const image = new Image();
    image.src = url;
    await image.decode();
    const scale = 2;
    const canvas = document.createElement("canvas");
    canvas.width = Math.ceil(size.width * scale);
    canvas.height = Math.ceil(size.height * scale);
    const context = canvas.getContext("2d");
    if (!context) return;
    context.scale(scale, scale);
    context.drawImage(image, 0, 0);
    const blob = await new Promise<Blob | null>((resolve) => canvas.toBlob(resolve, "image/png"));
    if (blob) download(blob, "autograd-graph.png");
  } finally {
    URL.revokeObjectURL(url);
  }
}

export function exportJson(data: unknown): void {
  download(new Blob([JSON.stringify(data, null, 2)], { type: "application/json" }), "autograd-run.json");
}
