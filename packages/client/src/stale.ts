/**
 * `readStale(headers)` (docs/client.md "Stale answers"): whether a response is the edge's last good copy served in
 * place of a failed or slow origin, read from this service's `Cache-Status` member (RFC 9211 §2:
 * `edge-errors; fwd=stale; fwd-status=521; ttl=-240; detail=stale-if-error`) and `Age` (RFC 9111 §5.1). A
 * `Cache-Status` that does not parse as a structured-field list is ignored, as RFC 9211 §2 allows.
 */
import { PROXY_NAME } from "./parse.js";
import { parseSfList, type SfBareItem } from "./structured-field.js";
import type { StaleAnswer } from "./types.js";

export function readStale(headers: Headers): StaleAnswer | null {
  const value = headers.get("Cache-Status");
  if (value === null) return null;
  const members = parseSfList(value);
  if (members === null) return null;
  // RFC 9211 §2: the member nearest the client is last; ours is the one that says what this answer is.
  for (let i = members.length - 1; i >= 0; i--) {
    const member = members[i];
    if (member?.kind !== "item" || textOf(member.value) !== PROXY_NAME) continue;
    const params = member.params;
    if (textOf(params.get("fwd")) !== "stale") return null;
    const detail = textOf(params.get("detail"));
    return {
      age: ageOf(headers.get("Age")),
      because: detail === "stale-if-error" || detail === "stale-if-slow" ? detail : "unknown",
      failedStatus: integerOf(params.get("fwd-status")),
      ttl: integerOf(params.get("ttl")),
    };
  }
  return null;
}

function textOf(item: SfBareItem | undefined): string | null {
  if (typeof item === "string") return item;
  if (typeof item === "object" && "kind" in item) return item.value;
  return null;
}

function integerOf(item: SfBareItem | undefined): number | null {
  return typeof item === "number" && Number.isInteger(item) ? item : null;
}

/** RFC 9111 §5.1 delta-seconds; an `Age` that is not one counts as 0 (the copy's age is then unknown, not negative). */
function ageOf(value: string | null): number {
  const v = value?.trim() ?? "";
  return /^\d+$/.test(v) ? Number(v) : 0;
}
