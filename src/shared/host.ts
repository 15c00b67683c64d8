/** Host helpers shared by routing and the proxy. */

/**
 * The zone of a request: its hostname, lower-cased, without port (docs/architecture.md), and without the trailing dot of
 * an absolute name: `shop.example.` is the same host (RFC 1034 §3.1), so it is the same zone (its config, the
 * names the zones API stores) and `localhost.` the same API host.
 */
export function zoneOf(url: URL): string {
  return normaliseHostname(url.hostname);
}

/** Whether `path` is the service prefix itself or lies under it (`/cdn-cgi`, `/cdn-cgi/...`). */
export function isUnderPrefix(path: string, prefix: string): boolean {
  return path === prefix || path.startsWith(prefix + "/");
}

/**
 * A hostname as the service compares hostnames (zones, API_HOSTS, token scopes, origins): lower-case, without the
 * trailing dot of an absolute name (RFC 1034 §3.1: `shop.example.` is `shop.example`).
 */
export function normaliseHostname(host: string): string {
  const lower = host.toLowerCase();
  return lower.length > 1 && lower.endsWith(".") ? lower.slice(0, -1) : lower;
}

/**
 * Why a name is not a DNS hostname, as a closed value (the zones API words it, zone traffic answers 1001).
 * RFC 1035 §2.3.4 and RFC 1123 §2.1: at most 253 characters in text form (255 octets on the wire, less the length
 * octets of the first label and the root), labels of 1 to 63 letters, digits and hyphens that neither start nor end
 * with a hyphen. IDNs arrive here as punycode (`xn--…`, RFC 3492): the URL parser converts a Unicode host, so the
 * limits apply to the ASCII form, the one DNS sees. The trailing dot of an absolute name is already gone
 * (`normaliseHostname`); a second one is an empty label.
 */
export type HostnameProblem =
  | { readonly kind: "empty" }
  | { readonly kind: "too-long"; readonly length: number }
  | { readonly kind: "empty-label" }
  | { readonly kind: "label-too-long"; readonly length: number }
  | { readonly kind: "bad-character" }
  | { readonly kind: "edge-hyphen" };

export const HOSTNAME_LIMITS = { maxLength: 253, maxLabel: 63 } as const;

const LABEL_CHARACTERS = /^[a-z0-9-]+$/;

/**
 * `null` when `name` (lower-case, as `normaliseHostname` leaves it) has the shape of a DNS hostname, else why not.
 * The length is checked first, so a 10 KB Host costs one comparison; labels are checked one by one without a regex
 * over the whole name.
 */
export function hostnameProblem(name: string): HostnameProblem | null {
  if (name.length === 0) return { kind: "empty" };
  if (name.length > HOSTNAME_LIMITS.maxLength) return { kind: "too-long", length: name.length };
  for (const label of name.split(".")) {
    if (label.length === 0) return { kind: "empty-label" };
    if (label.length > HOSTNAME_LIMITS.maxLabel) return { kind: "label-too-long", length: label.length };
    if (!LABEL_CHARACTERS.test(label)) return { kind: "bad-character" };
    if (label.startsWith("-") || label.endsWith("-")) return { kind: "edge-hyphen" };
  }
  return null;
}

/** The words of a `HostnameProblem`, completing "… is not a hostname: ". */
export function hostnameProblemMessage(problem: HostnameProblem): string {
  switch (problem.kind) {
    case "empty":
      return "it is empty";
    case "too-long":
      return `${problem.length} characters, at most ${HOSTNAME_LIMITS.maxLength} characters (RFC 1035 §2.3.4)`;
    case "empty-label":
      return "it has an empty label (two dots in a row, or a leading dot)";
    case "label-too-long":
      return `a label of ${problem.length} characters, at most ${HOSTNAME_LIMITS.maxLabel} characters per label (RFC 1035 §2.3.4)`;
    case "bad-character":
      return "labels hold only letters, digits and hyphens (RFC 1123 §2.1; IDNs as punycode xn--…)";
    case "edge-hyphen":
      return "a label starts or ends with a hyphen (RFC 1123 §2.1)";
  }
}
