/**
 * Reading a run's events: POST /api/v1/run/stream's newline-delimited JSON, one RunStreamEvent
 * a line (`start`, `stdout` while the program prints, `progress` while it is quiet, `busy`, and
 * last `result` with the RunResponse), and the same events as the /run/live WebSocket's
 * messages (`handleStreamEvent`). DOM-free: it reads any byte stream, so Node's tests feed it
 * chunks cut anywhere, and a notebook cell can reuse it.
 */
import { BusyError } from "./retry-after";
import type { NotebookStreamEvent, RunStreamEvent } from "./types";

/** What a reader of the stream is told while it runs. */
export interface StreamHandlers {
  /** The program printed `text`, `elapsedMs` after its run started. */
  onOutput?: (text: string, elapsedMs: number) => void;
  /** Any event: the run is alive `elapsedMs` after it started. */
  onProgress?: (elapsedMs: number) => void;
  /** A notebook's cell `cell` starts: the output that follows is its own. */
  onCell?: (cell: number) => void;
  /** The server took a Stop: the program is stopping where it is, its answer still to come. */
  onStopping?: () => void;
}

/** The server refused the run's request as invalid (the `invalid` event: a 422's detail). */
export class RunRefusedError extends Error {
  constructor(readonly detail: unknown) {
    super(typeof detail === "string" ? detail : `422: ${JSON.stringify(detail)}`);
  }
}

/**
 * Hand one event of a run (a stream's line, a socket's message) to `handlers`: the `result`
 * event's response is returned, every other event returns undefined. Throws BusyError for
 * `busy` and RunRefusedError for `invalid`.
 */
export function handleStreamEvent<Res>(event: RunStreamEvent | NotebookStreamEvent, handlers: StreamHandlers): Res | undefined {
  handlers.onProgress?.(event.elapsed_ms);
  if (event.event === "stdout" && event.text) handlers.onOutput?.(event.text, event.elapsed_ms);
  else if (event.event === "cell" && event.cell) handlers.onCell?.(event.cell);
  else if (event.event === "stopping") handlers.onStopping?.();
  else if (event.event === "busy") throw new BusyError(503, event.retry_after_s ?? null);
  else if (event.event === "invalid") throw new RunRefusedError(event.detail);
  else if (event.event === "result" && event.response) return event.response as Res;
  return undefined;
}

/** The stream ended before its `result` line (the connection broke, the server went away). */
export class StreamCutError extends Error {
  constructor() {
    super("the run's answer was cut off before it ended");
  }
}

/** Splits text that arrives in pieces into whole lines (without their "\n"). */
export class LineSplitter {
  private rest = "";

  /** The whole lines `chunk` completes; a partial last line waits for the next chunk. */
  push(chunk: string): string[] {
    const text = this.rest + chunk;
    const lines = text.split("\n");
    this.rest = lines.pop() ?? "";
    return lines.filter((line) => line.trim() !== "");
  }

  /** What is left when the stream ends (a last line without "\n"). */
  end(): string[] {
    const last = this.rest.trim();
    this.rest = "";
    return last ? [last] : [];
  }
}

/**
 * Read a run's stream to its end: hand output and progress to `handlers` as they arrive and
 * resolve with the `result` event's response. Throws BusyError for a `busy` event and
 * StreamCutError when the stream ends without a result.
 */
export async function readRunStream<Res>(body: ReadableStream<Uint8Array>, handlers: StreamHandlers): Promise<Res> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const lines = new LineSplitter();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      const text = done ? decoder.decode() : decoder.decode(value, { stream: true });
      for (const line of [...lines.push(text), ...(done ? lines.end() : [])]) {
        const response = handleStreamEvent<Res>(JSON.parse(line) as RunStreamEvent | NotebookStreamEvent, handlers);
        if (response !== undefined) return response;
      }
      if (done) throw new StreamCutError();
    }
  } finally {
    reader.releaseLock();
  }
}
