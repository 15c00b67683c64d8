/**
 * The retry default of every retryable catalog code (seconds), for responses that say only their code (legacy
 * bodies, `Proxy-Status` on HEAD without `Retry-After`): a code not listed is not retryable. The same values as
 * the service's catalog (docs/errors.md): packages/client/test/parse.test.ts compares this table with the
 * conformance fixtures, which the Worker generated.
 */
export const RETRY_DEFAULTS: Readonly<Record<number, number>> = {
  500: 30,
  502: 60,
  504: 120,
  520: 60,
  521: 120,
  522: 120,
  523: 120,
  524: 120,
  1004: 120,
  1015: 30,
  1033: 120,
  1038: 60,
  1200: 60,
  1205: 5,
};
