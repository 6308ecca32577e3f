/**
 * Steps through a recorded sequence (playground's Player): a position in [0, total], play/pause
 * with a cancel token so a stale timer never moves a newer sequence. DOM-free. The page uses one
 * for the backward walk and one for the forward replay (nodes in topological order).
 */
import { PLAYER } from "../common/config";

export class Player {
  private position = 0;
  private total = 0;
  private token = 0;
  private timer: ReturnType<typeof setTimeout> | null = null;
  speed = 1;
  /** The furthest position the walk may reach now (practice mode stops at an open question). */
  limit: () => number = () => Infinity;

  /**
   * `stepMs`: milliseconds per step at speed 1; `endHold`: how many steps' time the last position
   * stays before playing stops (the forward replay lingers on its last node before it ends).
   */
  constructor(
    private readonly stepMs: number = PLAYER.stepMs,
    private readonly endHold = 1,
  ) {}

  /** Called after every change of position or play state. */
  onChange: (position: number, playing: boolean) => void = () => {};

  get playing(): boolean {
    return this.timer !== null;
  }

  get current(): number {
    return this.position;
  }

  get length(): number {
    return this.total;
  }

  /** Load a new walk of `total` steps at `position`; stops playback. */
  load(total: number, position: number): void {
    this.stop(false);
    this.total = total;
    this.position = Math.max(0, Math.min(total, position));
    this.onChange(this.position, false);
  }

  /** Move to `position` (clamped). */
  seek(position: number): void {
    const next = Math.max(0, Math.min(this.total, this.limit(), position));
    if (next === this.position) return;
    this.position = next;
    this.onChange(this.position, this.playing);
  }

  next(): void {
    this.stop(false);
    this.seek(this.position + 1);
  }

  prev(): void {
    this.stop(false);
    this.seek(this.position - 1);
  }

  first(): void {
    this.stop(false);
    this.seek(0);
  }

  last(): void {
    this.stop(false);
    this.seek(this.total);
  }

  toggle(): void {
    if (this.playing) this.stop();
    else this.play();
  }

  /** Play from here (from the start if at the end). */
  play(): void {
    if (this.total === 0) return;
    if (this.position >= this.total) this.position = 0;
    const token = ++this.token;
    const tick = () => {
      if (token !== this.token) return;
      if (this.position >= Math.min(this.total, this.limit())) {
        this.stop();
        return;
      }
      this.position += 1;
      const hold = this.position >= this.total ? this.endHold : 1;
      this.timer = setTimeout(tick, (hold * this.stepMs) / this.speed);
      this.onChange(this.position, true);
    };
    this.timer = setTimeout(tick, this.position === 0 ? 0 : this.stepMs / this.speed);
    this.onChange(this.position, true);
  }

  /** Pause; `notify` false when the caller reports the change itself. */
  stop(notify = true): void {
    this.token++;
    if (this.timer !== null) clearTimeout(this.timer);
    const wasPlaying = this.timer !== null;
    this.timer = null;
    if (notify && wasPlaying) this.onChange(this.position, false);
  }
}
