/**
 * The device selector shared by both pages: a <select> filled from GET /api/v1/devices, an
 * unavailable device disabled and said so in a learner's words ("GPU: not available on this
 * server"; the operator's install hint stays in the API's `reason`), and the fallback to cpu when
 * a link asks for a device this server cannot use. Text is set as text, never parsed.
 */
import { fetchDevices } from "../api/client";
import { DEVICE } from "./config";
import { el } from "./dom";
import type { DeviceInfo } from "../api/types";

/** What a learner reads about an unavailable device: which kind it is, not how to install it. */
export function unavailableText(name: string): string {
  const kind = name.split(":")[0] === "cuda" ? "GPU" : name;
  return `${kind}: not available on this server`;
}

export class DevicePicker {
  /** Called with the device the user picked. */
  onChange: (device: string) => void = () => undefined;
  private devices: DeviceInfo[] | null = null;
  private fallbackNote = "";

  constructor(
    private readonly select: HTMLSelectElement,
    private readonly note: HTMLElement,
  ) {
    this.select.addEventListener("change", () => {
      const device = this.select.value;
      this.fallbackNote = "";
      this.show(device);
      this.onChange(device);
    });
  }

  /** Load the device list; resolves to the device to use for `wanted` (see `resolve`). */
  async load(wanted: string): Promise<string> {
    this.show(wanted);
    try {
      this.devices = await fetchDevices();
    } catch (error) {
      this.devices = [{ name: DEVICE.fallback, available: true, reason: null }];
      this.fallbackNote = `Could not list devices (${String(error)}).`;
    }
    return this.resolve(wanted);
  }

  /** `wanted` if the server can use it, else cpu with a note saying why; the select shows it. */
  resolve(wanted: string): string {
    if (!this.devices) return wanted;
    const kind = wanted.split(":")[0];
    const info = this.devices.find((d) => d.name === kind);
    let device = wanted;
    if (!info?.available) {
      device = DEVICE.fallback;
      this.fallbackNote = `This link asked for ${wanted}, which is unavailable here: using ${device}.`;
    }
    this.show(device);
    return device;
  }

  /** Show `device` as selected (after a URL change). */
  show(device: string): void {
    const devices = this.devices ?? [{ name: device, available: true, reason: null }];
    const names = devices.map((d) => d.name);
    const options = devices.map((d) => {
      const option = el("option", "", d.available ? d.name : `${d.name} (not available)`);
      option.value = d.name;
      option.disabled = !d.available;
      if (!d.available) option.title = unavailableText(d.name);
      return option;
    });
    // A device with an index (cuda:1) is offered as itself, next to its kind.
    if (!names.includes(device)) {
      const option = el("option", "", device);
      option.value = device;
      options.push(option);
    }
    this.select.replaceChildren(...options);
    this.select.value = device;
    const missing = devices.filter((d) => !d.available);
    const reasons = missing.map((d) => unavailableText(d.name));
    this.select.title = reasons.join("\n");
    const lines = [
      ...(this.fallbackNote ? [el("span", "device-warn", this.fallbackNote)] : []),
      ...reasons.map((r) => el("span", "device-reason", r)),
    ];
    this.note.replaceChildren(...lines);
    this.note.hidden = lines.length === 0;
    this.note.classList.toggle("warn", this.fallbackNote !== "");
  }
}
