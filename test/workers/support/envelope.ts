/** The v4 API envelope as tests read it (docs/tags-api.md, docs/configuration.md; src/api/kit/envelope.ts): one declaration for every test. */
export interface Envelope<T = unknown> {
  readonly success: boolean;
  readonly errors: { readonly code: number; readonly message: string }[];
  readonly messages: unknown[];
  readonly result: T;
  readonly result_info?: {
    readonly count: number;
    readonly per_page: number;
    readonly cursor: string | null;
    readonly cursors: { readonly after: string | null };
  };
}
