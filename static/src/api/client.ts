/** The API client: the only module that talks to the server. */
import { decodeNotebookResponse, decodeRunResponse } from "./decode-passes";
import { handleStreamEvent, readRunStream, RunRefusedError, StreamCutError, type StreamHandlers } from "./run-stream";
import { BusyError, parseRetryAfter } from "./retry-after";
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

/** Called once a run can be stopped softly, with the function that stops it (see runLive). */
export type Stoppable = (softStop: () => void) => void;

/** The WebSocket could not be opened at all (a proxy without WebSockets): use the stream. */
class SocketUnavailable extends Error {}

/** The close code of a socket the server refused for now (rate limit, saturation). */
const TRY_LATER = 1013;

/** The BusyError a 1013 close says: its reason is `{"retry_after": s, "status": 429|503}`. */
function busyFromClose(reason: string): BusyError {
  try {
    const said = JSON.parse(reason) as { retry_after?: unknown; status?: unknown };
    const status = said.status === 429 ? 429 : 503;
    return new BusyError(status, typeof said.retry_after === "number" ? said.retry_after : null);
  } catch {
    return new BusyError(503, null);
  }
}

/**
 * Run over the WebSocket at `path` (the /run/live protocol): send the run, hand its events to
 * `handlers`, resolve with the `result`'s response. Once it runs, `stoppable` gets a function
 * that stops it softly (`{"type": "stop"}`: the answer still comes, keeping what the program
 * printed and recorded); aborting `signal` closes the socket, which kills it at once.
 */
function runOverSocket<Res>(path: string, request: unknown, signal: AbortSignal, handlers: StreamHandlers, stoppable: Stoppable): Promise<Res> {
  return new Promise<Res>((resolve, reject) => {
    const url = new URL(path, window.location.href);
    url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
    let socket: WebSocket;
    try {
      socket = new WebSocket(url);
    } catch {
      reject(new SocketUnavailable());
      return;
    }
    let opened = false;
    let settled = false;
    const settle = (then: () => void) => {
      if (settled) return;
      settled = true;
      signal.removeEventListener("abort", onAbort);
      then();
    };
    const onAbort = () => {
      socket.close(1000);
      settle(() => reject(new DOMException("the run was stopped", "AbortError")));
    };
    if (signal.aborted) return onAbort();
    signal.addEventListener("abort", onAbort);
    socket.onopen = () => {
      opened = true;
      socket.send(JSON.stringify({ type: "run", request }));
      stoppable(() => {
        if (socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify({ type: "stop" }));
      });
    };
    socket.onmessage = (message: MessageEvent) => {
      try {
        const response = handleStreamEvent<Res>(JSON.parse(String(message.data)), handlers);
        if (response !== undefined) settle(() => resolve(response));
      } catch (error) {
        socket.close(1000);
        settle(() => reject(error instanceof RunRefusedError ? new ApiError(error.message) : error));
      }
    };
    socket.onclose = (event: CloseEvent) => {
      if (event.code === TRY_LATER) settle(() => reject(busyFromClose(event.reason)));
      else settle(() => reject(opened ? new StreamCutError() : new SocketUnavailable()));
    };
  });
}

/** `live()`, or when no WebSocket can be opened at all, `streamed()` (the same run, Stop kills). */
async function liveOrStreamed<Res>(live: () => Promise<Res>, streamed: () => Promise<Res>): Promise<Res> {
  try {
    return await live();
  } catch (error) {
    if (error instanceof SocketUnavailable) return streamed();
    throw error;
  }
}

/**
 * Run a program over the /api/v1/run/live WebSocket: as runProgramStream, and once it runs,
 * `stoppable` gets its soft Stop (the answer keeps what it printed and the passes it recorded).
 * Falls back to POST /api/v1/run/stream where WebSockets do not get through.
 */
export function runProgramLive(request: RunRequest, signal: AbortSignal, output: (text: string, elapsedMs: number) => void, stoppable: Stoppable): Promise<RunResponse> {
  return liveOrStreamed(
    async () => decodeRunResponse(await runOverSocket<WireRunResponse>("/api/v1/run/live", request, signal, { onOutput: output }, stoppable)),
    () => runProgramStream(request, signal, output),
  );
}

/** A notebook's run over /api/v1/notebook/run/live: as runNotebookStream, stoppable softly. */
export function runNotebookLive(
  request: NotebookRunRequest,
  signal: AbortSignal,
  output: (text: string, elapsedMs: number) => void,
  onCell: (cell: number) => void,
  stoppable: Stoppable,
): Promise<NotebookRunResponse> {
  return liveOrStreamed(
    async () => decodeNotebookResponse(await runOverSocket<WireNotebookRunResponse>("/api/v1/notebook/run/live", request, signal, { onOutput: output, onCell }, stoppable)),
    () => runNotebookStream(request, signal, output, onCell),
  );
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
