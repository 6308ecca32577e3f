/** The API client: the only module that talks to the server. */
import { BusyError, parseRetryAfter } from "./runner";
import type { DeviceInfo, Example, RunRequest, RunResponse } from "./types";

/** Error for a request the server refused (4xx) or could not answer. */
export class ApiError extends Error {}

async function asJson<T>(response: Response): Promise<T> {
  if (response.status === 429 || response.status === 503) {
    throw new BusyError(response.status, parseRetryAfter(response.headers.get("Retry-After")));
  }
  if (!response.ok) {
    let detail = `${response.status} ${response.statusText}`;
    try {
      const body = (await response.json()) as { detail?: unknown };
      if (body.detail !== undefined) detail += `: ${typeof body.detail === "string" ? body.detail : JSON.stringify(body.detail)}`;
    } catch {
      /* not JSON: keep the status line */
    }
    throw new ApiError(detail);
  }
  return (await response.json()) as T;
}

/** Run a program: POST /api/v1/run. Throws BusyError when the server asks to come back later. */
export async function runProgram(request: RunRequest): Promise<RunResponse> {
  const response = await fetch("/api/v1/run", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(request),
  });
  return asJson<RunResponse>(response);
}

/** The examples gallery: GET /api/v1/examples (empty when the server has none yet). */
export async function fetchExamples(): Promise<Example[]> {
  const response = await fetch("/api/v1/examples");
  if (response.status === 404) return [];
  return asJson<Example[]>(response);
}

/** GET /api/v1/devices: each device the server knows, with the reason when it is unavailable. */
export async function fetchDevices(): Promise<DeviceInfo[]> {
  return asJson<DeviceInfo[]>(await fetch("/api/v1/devices"));
}
