/**
 * Errors are values inside the service (docs/architecture.md): every fallible pure function returns a
 * `Result`, and only the HTTP edge turns a failure into a Response.
 */
export type Result<T, E> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: E };

/** A successful result. */
export const ok = <T>(value: T): { readonly ok: true; readonly value: T } => ({ ok: true, value });

/** A failed result. */
export const err = <E>(error: E): { readonly ok: false; readonly error: E } => ({ ok: false, error });
