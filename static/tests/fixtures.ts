/** Recorded API responses the unit tests replay (tests/e2e/fixtures, shared with the browser tests). */
import { readFileSync } from "node:fs";
import type { RunResponse } from "../src/api/types";

/** A fixture by file name; the tests run from the repository root (`npm test`). */
export function fixture(name: string): RunResponse {
  return JSON.parse(readFileSync(`tests/e2e/fixtures/${name}`, "utf8")) as RunResponse;
}
