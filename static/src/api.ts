/** The API client: the only module that talks to the server. */
import { decodeNotebookResponse, decodeRunResponse } from "./passes";
import { readRunStream } from "./run-stream";
import { BusyError, parseRetryAfter } from "./runner";
import type { DeviceInfo, Example, NotebookRunRequest, NotebookRunResponse, RunRequest, RunResponse, WireNotebookRunResponse, WireRunResponse } from "./types";

/** Error for a request the server refused (4xx) or could not answer. */
export class ApiError extends Error {}

/** Throw for an answer that is not a success: BusyError for 429/503, ApiError otherwise. */
async function check(response: Response): Promise<void> {
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
}

async function asJson<T>(response: Response): Promise<T> {
  await check(response);
  return (await response.json()) as T;
}

/** POST `request` as JSON to a streaming route; the answer's body, once the server took the run. */
async function postForStream(url: string, request: unknown, signal: AbortSignal): Promise<ReadableStream<Uint8Array>> {
  const response = await fetch(url, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(request),
    signal,
  });
  await check(response);
  if (!response.body) throw new ApiError("the run's answer has no body");
  return response.body;
}

/**
 * Run a program and follow it: POST /api/v1/run/stream. `output` gets what the program prints
 * while it runs; resolves with the run's response. Aborting `signal` closes the connection, which
 * stops the program on the server. Throws BusyError when the server asks to come back later.
 */
export async function runProgramStream(request: RunRequest, signal: AbortSignal, output: (text: string, elapsedMs: number) => void): Promise<RunResponse> {
  const body = await postForStream("/api/v1/run/stream", request, signal);
  return decodeRunResponse(await readRunStream<WireRunResponse>(body, { onOutput: output }));
}

/**
 * Run a notebook's cells 1..`request.cell` and follow them: POST /api/v1/notebook/run/stream.
 * `onCell` is told each cell as it starts, `output` what it prints; resolves with the response.
 * Aborting `signal` stops the run on the server. Throws BusyError when the server is busy.
 */
export async function runNotebookStream(
  request: NotebookRunRequest,
  signal: AbortSignal,
  output: (text: string, elapsedMs: number) => void,
  onCell: (cell: number) => void,
): Promise<NotebookRunResponse> {
  const body = await postForStream("/api/v1/notebook/run/stream", request, signal);
  return decodeNotebookResponse(await readRunStream<WireNotebookRunResponse>(body, { onOutput: output, onCell }));
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
