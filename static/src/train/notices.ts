/**
 * The notices under the toolbar: a refused spec (an error), the connection's state (calm: the
 * server is busy or the connection dropped, and the run is kept), and a diverging loss with a
 * one-click lower learning rate.
 */
import { byId, el } from "../common/dom";
import type { Verdict } from "./divergence";
import type { LinkStatus } from "./live";

export class Notices {
  /** The user accepted the lower learning rate offered. */
  onLowerRate: (lr: number) => void = () => {};
  private readonly errorBox = byId("train-error", HTMLElement);
  private readonly linkBox = byId("train-link", HTMLElement);
  private readonly divergeBox = byId("train-diverge", HTMLElement);
  private readonly divergeText = byId("train-diverge-text", HTMLElement);
  private readonly lowerButton = byId("train-lower-lr", HTMLButtonElement);
  private countdown = 0;
  private offered = 0;

  constructor() {
    this.lowerButton.addEventListener("click", () => this.onLowerRate(this.offered));
  }

  error(message: string | null): void {
    if (this.errorBox.textContent !== (message ?? "")) this.errorBox.textContent = message ?? "";
    this.errorBox.hidden = message === null;
  }

  /** The connection's state: nothing while it works; a calm countdown while it waits. */
  link(status: LinkStatus): void {
    window.clearInterval(this.countdown);
    this.countdown = 0;
    if (status.kind === "broken") {
      this.linkBox.hidden = true;
      return this.error(status.message);
    }
    if (status.kind !== "busy" && status.kind !== "offline") {
      this.linkBox.hidden = true;
      delete this.linkBox.dataset.kind;
      return;
    }
    const seconds = el("span", "mono");
    seconds.setAttribute("aria-hidden", "true"); // announced once, not every second
    const tick = (): void => {
      seconds.textContent = String(Math.max(0, Math.ceil((status.retryAt - Date.now()) / 1000)));
    };
    tick();
    const what = status.kind === "busy" ? "The server is busy" : "The connection to the server was lost";
    this.linkBox.replaceChildren(`${what}: retrying in `, seconds, " s. Your training is kept where it was.");
    this.linkBox.dataset.kind = status.kind;
    this.linkBox.hidden = false;
    this.countdown = window.setInterval(tick, 250);
  }

  /** Warn of a diverging loss (`verdict`), offering `lower` instead of `lr`; null hides it. */
  divergence(verdict: Verdict | null, lr: number, lower: number): void {
    this.divergeBox.hidden = verdict === null;
    if (verdict === null) return;
    this.offered = lower;
    const said: Record<Verdict, string> = {
      nan: `The loss became NaN: learning rate ${lr} was too high and the weights are no longer numbers. Training paused.`,
      growing: `The loss is diverging: it has grown more than tenfold from its best. Learning rate ${lr} is probably too high.`,
      thrashing: `The loss is diverging: it keeps swinging far above what guessing would score. Learning rate ${lr} is probably too high.`,
    };
    this.divergeText.textContent = said[verdict];
    this.lowerButton.textContent = `Restart with learning rate ${lower}`;
  }
}
