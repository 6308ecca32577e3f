/** The examples gallery: cards from GET /api/v1/examples in a dialog; picking one loads it. */
import { fetchExamples } from "../api/client";
import { el } from "../common/dom";
import type { Example } from "../api/types";

export class ExamplesGallery {
  /** Called with the example the user picked; `practice`: to walk it in practice mode. */
  onPick: (example: Example, practice: boolean) => void = () => {};

  constructor(
    private readonly dialog: HTMLDialogElement,
    private readonly list: HTMLElement,
    opener: HTMLElement,
  ) {
    opener.addEventListener("click", () => this.open());
  }

  private async open(): Promise<void> {
    this.dialog.showModal();
    if (this.list.dataset.loaded === "true") return;
    this.list.replaceChildren(el("p", "muted", "Loading examples…"));
    try {
      const examples = await fetchExamples();
      this.list.replaceChildren(...examples.map((example) => this.card(example)));
      if (examples.length === 0) this.list.replaceChildren(el("p", "muted", "No examples yet."));
      this.list.dataset.loaded = "true";
    } catch (error) {
      this.list.replaceChildren(el("p", "muted", `Could not load the examples: ${String(error)}`));
    }
  }

  /** An example's card (it loads the example) and, beside it, its practice version. */
  private card(example: Example): HTMLElement {
    const button = el("button", "example-card");
    button.type = "button";
    button.dataset.example = example.id;
    button.dataset.testid = `example-${example.id}`;
    const title = el("strong", "", example.title);
    title.id = `example-title-${example.id}`;
    button.append(title, el("span", "", example.explanation));
    button.addEventListener("click", () => this.pick(example, false));
    const practice = el("button", "example-practice ghost", "✎ Practice");
    practice.type = "button";
    practice.dataset.testid = `example-${example.id}-practice`;
    practice.title = "Walk it computing each gradient yourself";
    practice.setAttribute("aria-describedby", title.id); // its name stays "Practice"
    practice.addEventListener("click", () => this.pick(example, true));
    const item = el("div", "example-item");
    item.append(button, practice);
    return item;
  }

  private pick(example: Example, practice: boolean): void {
    this.dialog.close();
    this.onPick(example, practice);
  }
}
