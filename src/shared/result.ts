/**
 * Errors are values inside the service (docs/architecture.md): every fallible pure function returns a
 * `Result`, and only the HTTP edge turns a failure into a Response.
 */
export type Result<T, E> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: E };

/** A successful result. */
export const ok = <T>(value: T): { readonly ok: true; readonly value: T } => ({ ok: true, value });

/** A failed result. */
export const err = <E>(error: E): { readonly ok: false; readonly error: E } => ({ ok: false, error });

/** What an unknown thrown value says, for a log line (`TypeError: …`); never sent to a client. */
export function causeOf(thrown: unknown): string {
  return thrown instanceof Error ? `${thrown.name}: ${thrown.message}` : String(thrown);
}

/** The message of an unknown thrown value alone (for classification by message, or a client-facing reason). */
export function messageOf(thrown: unknown): string {
  return thrown instanceof Error ? thrown.message : String(thrown);
}
