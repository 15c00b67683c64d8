/**
 * Management API authentication and authorisation (docs/configuration.md).
 *
 * - `Authorization: Bearer <token>`; missing or unknown → 401 (code 10000); known but lacking the permission or
 *   outside its accounts/zones → 403 (code 10001).
 * - `ADMIN_TOKEN` (secret) has every permission. `API_TOKENS` (secret, optional) is a JSON array of scoped tokens
 *   stored only as the SHA-256 hex of the token.
 * - The presented token is hashed once and its digest compared with every known digest in constant time
 *   (`crypto.subtle.timingSafeEqual`), so neither the comparison nor the loop reveals how much of a token matched.
 *   Only digests are ever stored or logged.
 */
import { fromHex, sha256, toHex } from "../../shared/crypto";
import { normaliseHostname } from "../../shared/host";
import { logEvent } from "../../shared/log";
import { err, ok, type Result } from "../../shared/result";
import { API_FAILURES, type ApiFailure } from "./envelope";

export const PERMISSIONS = ["tags:read", "tags:write", "zones:read", "zones:write"] as const;
export type Permission = (typeof PERMISSIONS)[number];

/** `"*"` or an explicit list of account ids / zone hosts. */
export type Scope = "*" | ReadonlySet<string>;

/** Who is calling, once authenticated. */
export interface Principal {
  readonly name: string;
  readonly accounts: Scope;
  readonly zones: Scope;
  readonly permissions: ReadonlySet<Permission>;
}

/** The secrets this module reads. */
export interface AuthVars {
  ADMIN_TOKEN?: string;
  API_TOKENS?: string;
}

/**
 * What a request is about: an account (tagging, docs/tags-api.md), a zone (docs/configuration.md "Zones"), or the
 * list of zones (`GET /zones`), which needs only the permission: the listing shows only the zones in the token's scope.
 */
export type AccessTarget =
  | { readonly kind: "account"; readonly id: string }
  | { readonly kind: "zone"; readonly name: string }
  | { readonly kind: "zone-list" };

/** What a route needs: a permission, on an account or a zone. */
export interface Requirement {
  readonly permission: Permission;
  readonly target: AccessTarget;
  /**
   * The route creates the zone when it is not configured (`PUT /zones/{zone}`): a token that reaches zones through
   * its accounts may then go on, and the write itself checks the account the new zone names.
   */
  readonly createsZone?: boolean;
}

/**
 * The account of a zone as stored (`null`: none), or `null` for a zone not configured; looked up only for a token
 * that does not name the zone but has accounts (the mount reads the zone's writer of record).
 */
export type ZoneAccountLookup = (
  zone: string,
) => Promise<Result<{ readonly account: string | null } | null, ApiFailure>>;

interface KnownToken {
  readonly digest: Uint8Array;
  readonly principal: Principal;
}

/** Authenticates the request's bearer token. */
export async function authenticate(request: Request, env: AuthVars): Promise<Result<Principal, ApiFailure>> {
  const token = bearerToken(request.headers.get("Authorization"));
  if (token === null) return err(API_FAILURES.unauthenticated());
  const presented = await sha256(token);
  let found: Principal | null = null;
  // No early exit: every comparison runs whatever matched, so timing says nothing about which token matched.
  for (const known of await knownTokens(env)) {
    if (crypto.subtle.timingSafeEqual(known.digest, presented) && found === null) found = known.principal;
  }
  return found ? ok(found) : err(API_FAILURES.unauthenticated());
}

/**
 * Checks an authenticated principal against what a route needs (docs/configuration.md "Secrets"). A zone is in a
 * token's scope when `zones` names it, or when it belongs to one of the token's `accounts` (the zone object's
 * `account.id`): only then is the zone's account looked up, so a token scoped by zone names costs no read. A zone
 * not configured belongs to no account: such a token reaches it only to create it (`createsZone`).
 */
export async function authorize(
  principal: Principal,
  need: Requirement,
  accountOf: ZoneAccountLookup,
): Promise<Result<Principal, ApiFailure>> {
  if (!principal.permissions.has(need.permission)) return err(API_FAILURES.forbidden());
  const { target } = need;
  switch (target.kind) {
    case "account":
      return scopeIncludes(principal.accounts, target.id) ? ok(principal) : err(API_FAILURES.forbidden());
    case "zone-list":
      return ok(principal); // the zone list filters by the token's zones and accounts itself (src/api/zones/list.ts)
    case "zone": {
      const zone = normaliseHostname(target.name);
      if (scopeIncludes(principal.zones, zone)) return ok(principal);
      if (!hasAccounts(principal)) return err(API_FAILURES.forbidden());
      const found = await accountOf(zone);
      if (!found.ok) return found;
      if (found.value === null) return need.createsZone === true ? ok(principal) : err(API_FAILURES.forbidden());
      const account = found.value.account;
      return account !== null && scopeIncludes(principal.accounts, account)
        ? ok(principal)
        : err(API_FAILURES.forbidden());
    }
  }
}

/** Whether a zone of this name and account is in the principal's scope (what `authorize` decides, given the account). */
export function zoneInScope(principal: Principal, zone: string, account: string | null): boolean {
  return (
    scopeIncludes(principal.zones, normaliseHostname(zone)) ||
    (account !== null && scopeIncludes(principal.accounts, account))
  );
}

/** Whether the principal may name this account (put a zone in it, read its resources). */
export function accountInScope(principal: Principal, account: string): boolean {
  return scopeIncludes(principal.accounts, account);
}

function hasAccounts(principal: Principal): boolean {
  return principal.accounts === "*" || principal.accounts.size > 0;
}

/** SHA-256 of a token as lower-case hex: the only form of a token that is stored or logged. */
export async function tokenDigestHex(token: string): Promise<string> {
  return toHex(await sha256(token));
}

function scopeIncludes(scope: Scope, id: string): boolean {
  return scope === "*" || scope.has(id);
}

/** RFC 6750 §2.1: `Bearer` is case-insensitive, one space, then the token68 credentials. */
function bearerToken(header: string | null): string | null {
  const match = header === null ? null : /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i.exec(header);
  return match?.[1] ?? null;
}

// Parsed once per distinct secret value per isolate: secrets change only on deploy. The resolved list is kept,
// never a pending Promise: workerd refuses to let one request await work started by another.
let cachedKey: string | null = null;
let cachedTokens: readonly KnownToken[] = [];

async function knownTokens(env: AuthVars): Promise<readonly KnownToken[]> {
  const key = `${env.ADMIN_TOKEN ?? ""}\u0000${env.API_TOKENS ?? ""}`;
  if (key !== cachedKey) {
    const tokens = await loadTokens(env);
    cachedKey = key;
    cachedTokens = tokens;
  }
  return cachedTokens;
}

const ADMIN: Omit<Principal, "name"> = { accounts: "*", zones: "*", permissions: new Set(PERMISSIONS) };

async function loadTokens(env: AuthVars): Promise<readonly KnownToken[]> {
  const tokens: KnownToken[] = [];
  if (env.ADMIN_TOKEN) tokens.push({ digest: await sha256(env.ADMIN_TOKEN), principal: { name: "admin", ...ADMIN } });
  if (env.API_TOKENS) {
    const parsed = parseApiTokens(env.API_TOKENS);
    if (!parsed.ok) logEvent("api_tokens_invalid", { reason: parsed.error });
    else tokens.push(...parsed.value);
  }
  return tokens;
}

/**
 * Parses `API_TOKENS`. A malformed secret fails closed (no scoped token works) and is logged, rather than
 * half-applying a configuration the operator did not mean.
 */
export function parseApiTokens(raw: string): Result<KnownToken[], string> {
  let data: unknown;
  try {
    data = JSON.parse(raw);
  } catch {
    return err("API_TOKENS is not valid JSON");
  }
  if (!Array.isArray(data)) return err("API_TOKENS must be a JSON array");
  const tokens: KnownToken[] = [];
  for (const [index, entry] of data.entries()) {
    if (typeof entry !== "object" || entry === null) return err(`API_TOKENS[${index}] must be an object`);
    const e = entry as Record<string, unknown>;
    const digest = typeof e.sha256 === "string" ? fromHex(e.sha256, 32) : null;
    if (!digest) return err(`API_TOKENS[${index}].sha256 must be 64 hex characters`);
    const accounts = parseScope(e.accounts, (s) => s.toLowerCase());
    // Zones as the routes compare them: lower-case, an absolute name's trailing dot dropped (RFC 1034 §3.1).
    const zones = parseScope(e.zones, normaliseHostname);
    if (!accounts || !zones) return err(`API_TOKENS[${index}]: accounts and zones must be arrays of strings`);
    const permissions = Array.isArray(e.permissions) ? e.permissions : null;
    if (!permissions || !permissions.every((p): p is Permission => (PERMISSIONS as readonly unknown[]).includes(p)))
      return err(`API_TOKENS[${index}].permissions must list only ${PERMISSIONS.join(", ")}`);
    const name = typeof e.name === "string" && e.name ? e.name : `token-${index}`;
    tokens.push({ digest, principal: { name, accounts, zones, permissions: new Set(permissions) } });
  }
  return ok(tokens);
}

function parseScope(value: unknown, normalise: (s: string) => string): Scope | null {
  if (value === undefined) return new Set();
  if (!Array.isArray(value) || !value.every((v): v is string => typeof v === "string")) return null;
  return value.includes("*") ? "*" : new Set(value.map(normalise));
}
