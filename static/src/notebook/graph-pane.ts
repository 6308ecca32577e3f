/**
 * The notebook's graph pane: one cell's graph at a time, drawn and walked by the playground's
 * own walk view (walk/view.ts), laid out in the same elements as the playground's stage (the
 * same ids, so the same walk bar and styles). A cell's graph opens at the first step of its walk,
 * the loss's own, as the playground's does, and the nodes earlier cells recorded are marked.
 */
import { markCompared } from "../graph/pytorch-compare";
import { byId } from "../common/dom";
import type { Action } from "../common/shortcuts";
import type { Graph, NotebookRunResponse } from "../api/types";
import { WalkView } from "../walk/view";
import { failedNode, openingPosition, recordedStep } from "../walk/navigation";

export class GraphPane {
  private readonly walk = new WalkView({
    opening: openingPosition,
    clickMovesWalk: false,
    decorate: (svg, graph) => {
      markCompared(svg, graph);
      markEarlier(svg, graph);
    },
    busy: () => false,
  });
  readonly svg = this.walk.svg;
  private response: NotebookRunResponse | null = null;
  private pass: number | null = null;
  private drawn = 0;

  /** Called when the walk moves or another pass is picked (the URL records them). */
  onPosition: (step: number | null, pass: number | null) => void = () => {};

  constructor() {
    this.walk.onPass = (pass) => {
      this.pass = pass;
      this.onPosition(null, pass);
    };
    this.walk.onPassShown = (_views, graph) => this.walk.markFailed(failedNode(this.response, graph));
    this.walk.onPosition = (position, total, opening) => {
      if (!opening) this.onPosition(total > 0 ? recordedStep(position, total) : null, this.pass);
    };
    byId("legend-toggle", HTMLButtonElement).addEventListener("click", () => {
      const legend = byId("legend", HTMLElement);
      legend.hidden = !legend.hidden;
      byId("legend-toggle", HTMLButtonElement).setAttribute("aria-expanded", String(!legend.hidden));
    });
  }

  /** The response whose graphs are shown (null: none). */
  get shown(): NotebookRunResponse | null {
    return this.response;
  }

  /** Show `response`'s graphs (a cell's), at walk `step` (null: its first) of pass `pass` (null: the last). */
  async show(response: NotebookRunResponse | null, step: number | null, pass: number | null): Promise<void> {
    this.response = response;
    this.pass = pass;
    this.walk.closeModules();
    await this.walk.show(response, step, pass);
    this.drawn += 1;
    this.svg.dataset.runCount = String(this.drawn);
    this.svg.dataset.state = "ready";
  }

  /** Practice mode on or off (the next graph shown asks its walk's questions). */
  setPractice(on: boolean): void {
    this.walk.setPractice(on);
  }

  /** Mark the pane busy while a run is on its way (tests wait for "ready"). */
  loadingState(): void {
    this.svg.dataset.state = "loading";
  }

  /** A page shortcut (common/shortcuts.ts) that concerns the graph; false when it does not. */
  act(action: Action): boolean {
    if (action === "leave") {
      this.walk.unselect();
      return true;
    }
    return this.walk.act(action);
  }
}

/** Nodes an earlier cell recorded carry `data-earlier` (drawn dashed; the legend says so). */
function markEarlier(svg: SVGSVGElement, graph: Graph): void {
  const earlier = new Set(graph.nodes.filter((n) => n.earlier).map((n) => n.id));
  for (const group of svg.querySelectorAll<SVGGElement>("g[data-node-id]")) {
    const id = group.dataset.nodeId ?? "";
    if (earlier.has(id)) group.dataset.earlier = "true";
    else delete group.dataset.earlier;
  }
}
