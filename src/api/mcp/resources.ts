/**
 * The error catalog as MCP resources (docs/mcp.md "Resources"): `edge-errors://codes/{code}`, each the code's
 * reference entry as Markdown, the same text `{SERVICE_PREFIX}/errors/{code}` answers to `Accept: text/markdown`
 * (docs/errors.md). Listed whole (the catalog is small) and as a template. Pure.
 */
import { CATALOG, catalogEntry } from "../../errors/catalog";
import { wireTitle } from "../../errors/fields";
import { chooseErrorFormat } from "../../errors/format";
import { typeUri } from "../../errors/pipeline";
import { referenceEntry, renderReferenceEntry } from "../../errors/reference";
import type { Settings } from "../../shared/settings";

const SCHEME = "edge-errors://codes/";
const MARKDOWN = "text/markdown";

export function resourceList(): unknown {
  return {
    resources: CATALOG.map((entry) => ({
      uri: `${SCHEME}${entry.code}`,
      name: `error-${entry.code}`,
      title: wireTitle(entry),
      description: `${entry.errorName}: HTTP ${entry.status}, ${entry.category}`,
      mimeType: MARKDOWN,
    })),
  };
}

export function resourceTemplates(): unknown {
  return {
    resourceTemplates: [
      {
        uriTemplate: `${SCHEME}{code}`,
        name: "error-code",
        title: "An error code's reference entry",
        description: "What the error means, who must act and what to do, by its code (e.g. 521, 1020).",
        mimeType: MARKDOWN,
      },
    ],
  };
}

/** The reference entry of the resource `uri` (its links resolved against `requestUrl`), or null for no such code. */
export function readResource(uri: string, requestUrl: string, settings: Settings): unknown {
  const code = uri.startsWith(SCHEME) ? uri.slice(SCHEME.length) : "";
  const entry = /^[1-9][0-9]{2,3}$/.test(code) ? catalogEntry(Number(code)) : undefined;
  if (entry === undefined) return null;
  const reference = referenceEntry(entry, typeUri(entry.code, requestUrl, settings));
  const text = renderReferenceEntry(reference, chooseErrorFormat(MARKDOWN), `${settings.servicePrefix}/errors`);
  return { contents: [{ uri, mimeType: MARKDOWN, text }] };
}
