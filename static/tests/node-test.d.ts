/**
 * The little of Node's test runner and assert module the unit tests use (Node >= 20 has both
 * built in; this saves a dependency on @types/node for two imports).
 */
declare module "node:test" {
  type Body = (context: unknown) => void | Promise<void>;
  export function test(name: string, body: Body): Promise<void>;
  export function describe(name: string, body: () => void): void;
  export default test;
}

declare module "node:assert/strict" {
  interface Assert {
    (value: unknown, message?: string): asserts value;
    equal<T>(actual: unknown, expected: T, message?: string): asserts actual is T;
    notEqual(actual: unknown, expected: unknown, message?: string): void;
    deepEqual<T>(actual: unknown, expected: T, message?: string): asserts actual is T;
    notDeepEqual(actual: unknown, expected: unknown, message?: string): void;
    ok(value: unknown, message?: string): asserts value;
    match(value: string, pattern: RegExp, message?: string): void;
    doesNotMatch(value: string, pattern: RegExp, message?: string): void;
    throws(fn: () => unknown, expected?: string | (new (...args: never[]) => Error)): void;
    fail(message?: string): never;
    rejects(promise: Promise<unknown> | (() => Promise<unknown>), expected?: unknown): Promise<void>;
  }
  const assert: Assert;
  export default assert;
}

declare module "node:fs" {
  export function readFileSync(path: string, encoding: "utf8"): string;
}
