/** The train page's API client: the only module of the page that talks to the server. */
import type { TrainRequest, TrainResponse } from "./types";

/** A request the server refused (4xx), with its detail, or a network failure. */
export class TrainApiError extends Error {}

function describe(detail: unknown): string {
  if (typeof detail === "string") return detail;
  if (Array.isArray(detail)) {
    return detail
      .map((d: { loc?: unknown[]; msg?: string }) => `${(d.loc ?? []).slice(1).join(".")}: ${d.msg ?? ""}`)
      .join("; ");
  }
  return JSON.stringify(detail);
}

/** POST /api/v1/train. `signal` cancels a superseded call. */
export async function train(request: TrainRequest, signal?: AbortSignal): Promise<TrainResponse> {
  const response = await fetch("/api/v1/train", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(request),
    signal,
  });
  if (!response.ok) {
    let detail = `${response.status} ${response.statusText}`;
    try {
      const body = (await response.json()) as { detail?: unknown };
      if (body.detail !== undefined) detail = describe(body.detail);
    } catch {
      /* not JSON: keep the status line */
    }
    throw new TrainApiError(detail);
  }
  return (await response.json()) as TrainResponse;
}
