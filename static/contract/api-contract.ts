/**
 * The page's types (static/src/api/types.ts) checked against the API's schema (build/api-contract,
 * generated from /openapi.json by tests/e2e/openapi_types.py). `make lint` runs tsc on this file:
 * it fails, naming the field, when the server may send something the page does not expect (a
 * field renamed or retyped, null where the page expects a value) or when a request the page
 * builds is not one the server accepts. Optionality is not compared: the schema marks every field
 * with a default optional, though responses always carry it. A field the page reads that the
 * schema does not declare is accepted where the schema allows extra fields (the node, walk and
 * graph objects do), so fields other helpers are adding can be read before they are declared.
 */
import type * as Api from "../../build/api-contract/api.gen";
import type * as Page from "../src/api/types";

type IsUnknown<T> = unknown extends T ? true : false;
/** T without its index signature. */
type Known<T> = { [K in keyof T as string extends K ? never : number extends K ? never : K]: T[K] };
type HasIndex<T> = string extends keyof T ? true : false;
type IndexValue<T> = T extends { [key: string]: infer V } ? V : never;

/**
 * The paths at which a value of the schema's type `A` is not a value of the page's type `O`.
 * `D` counts the levels walked: a recursive type (a caption's MathNode holds MathNodes) is
 * compared to a depth that covers every field once, then taken as checked.
 */
type Mismatch<A, O, Path extends string, D extends 0[] = []> = D["length"] extends 16 ? never : Compare<Exclude<A, undefined>, Exclude<O, undefined>, Path, [...D, 0]>;

type Compare<A, O, Path extends string, D extends 0[]> =
  IsUnknown<A> extends true
    ? never // the schema leaves it open (any JSON): nothing to check
    : null extends A
      ? null extends O
        ? Compare<NonNullable<A>, NonNullable<O>, Path, D>
        : `${Path}: the schema allows null`
      : [A] extends [readonly (infer AE)[]]
        ? [NonNullable<O>] extends [readonly (infer OE)[]]
          ? Mismatch<AE, OE, `${Path}[]`, D>
          : `${Path}: the schema sends a list`
        : [A] extends [object]
          ? [NonNullable<O>] extends [object]
            ? ObjectMismatch<A, NonNullable<O>, Path, D>
            : `${Path}: the schema sends an object`
          : [A] extends [NonNullable<O>]
            ? never
            : `${Path}: the schema's type is not the page's`;

type ObjectMismatch<A, O, Path extends string, D extends 0[]> =
  | {
      [K in keyof Known<O> & string]-?: K extends keyof Known<A>
        ? Mismatch<Known<A>[K], Known<O>[K], `${Path}.${K}`, D>
        : HasIndex<A> extends true
          ? never // not declared yet, but the schema allows extra fields
          : `${Path}.${K}: not in the schema`;
    }[keyof Known<O> & string]
  | (HasIndex<O> extends true ? (HasIndex<A> extends true ? Mismatch<IndexValue<A>, IndexValue<O>, `${Path}[key]`, D> : never) : never);

/** Compiles only when `T` is `never`; otherwise the error shows the offending paths. */
type Expect<T extends never> = T;

/**
 * Fields the page reads before the schema declares them (none now). Each leaves this list when
 * the schema declares it; from then on its type is checked.
 */
type Pending = never;

export type Responses = [
  Expect<Exclude<Mismatch<Api.ApiRunResponse, Page.WireRunResponse, "RunResponse">, `${Pending}: not in the schema`>>,
  Expect<Mismatch<Api.ApiExample, Page.Example, "Example">>,
  Expect<Mismatch<Api.ApiDeviceInfo, Page.DeviceInfo, "DeviceInfo">>,
  Expect<Mismatch<Api.ApiRunStreamEvent, Page.RunStreamEvent, "RunStreamEvent">>,
  Expect<Mismatch<Api.ApiNotebookRunResponse, Page.WireNotebookRunResponse, "NotebookRunResponse">>,
  Expect<Mismatch<Api.ApiNotebookStreamEvent, Page.NotebookStreamEvent, "NotebookStreamEvent">>,
];

/** Every request the page builds is one the schema accepts. */
export const requestFits = (request: Page.RunRequest): Api.ApiRunRequest => request;
export const notebookRequestFits = (request: Page.NotebookRunRequest): Api.ApiNotebookRunRequest => request;
