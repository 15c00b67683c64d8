/**
 * The zone configuration API's part of the OpenAPI document (docs/configuration.md).
 */
import {
  jsonBody,
  ok,
  operation,
  param,
  parameterOf,
  queryParameters,
  ref,
  response,
  type Json,
  type OpenApiFragment,
} from "../kit/openapi";
import * as z from "zod/mini";
import { dateTime, named } from "../../shared/schema";
import { ZONE_NAME, ZONE_SETTINGS } from "../../state/zone/schema";
// ListedZone, ZonePageInfo and ZoneCursorInfo are components of ./list.ts (the answers' own schemas).
import { ZONE_LIST, ZONE_LIST_CODES, ZONE_LIST_QUERY } from "./list";

/** A write's answers: the zone as stored, or a body over the limit. */
const STORED_ZONE = { "200": ok("The stored zone", ref("Zone")), "413": response("TooLarge") };

const zonePaths: Record<string, Json> = {
  "/zones": {
    get: operation(
      "zones:read",
      "listZones",
      "The zones the token may read, by name",
      {
        "200": ok(
          "One page of zones",
          { type: "array", items: ref("ListedZone") },
          {
            oneOf: [ref("ZonePageInfo"), ref("ZoneCursorInfo")],
          },
        ),
      },
      {
        description:
          "Page with `page`/`per_page` (counts every zone for `total_count`: one KV list call per 1,000 keys, " +
          `refused with ${ZONE_LIST_CODES.tooManyToCount} past ${ZONE_LIST.maxListCalls * ZONE_LIST.listLimit} keys) ` +
          "or with `cursor` (keyset: resumes where the previous page ended; start without `page` and follow " +
          "`result_info.cursor`, null on the last page). A scoped token lists the zones it names and those of its accounts. Unknown or " +
          `repeated parameters, both \`page\` and \`cursor\`, or a cursor this listing did not give: 400 (${ZONE_LIST_CODES.invalidParameter}).`,
        parameters: queryParameters(ZONE_LIST_QUERY),
      },
    ),
  },
  "/zones/{zone}": {
    parameters: [param("Zone")],
    get: operation("zones:read", "getZone", "A zone's configuration", { "200": ok("The zone", ref("Zone")) }),
    put: operation("zones:write", "putZone", "Create or replace a zone", STORED_ZONE, {
      requestBody: jsonBody("ZoneSettings"),
    }),
    patch: operation("zones:write", "patchZone", "Edit some of a zone's settings", STORED_ZONE, {
      description:
        "The fields given replace the stored ones; `null` resets a field to its default (`account: null`: no " +
        "account). The merged settings are validated exactly as a `PUT` body (400, 1004, one error per field); " +
        "a zone not configured is 404 (1001).",
      requestBody: jsonBody("ZonePatch"),
    }),
    delete: operation("zones:write", "deleteZone", "Delete a zone with all its rules and pages", {
      "200": ok("Deleted", { type: "object", required: ["id"], properties: { id: { type: "string" } } }),
    }),
  },
};

export const zonesOpenApi: OpenApiFragment = {
  paths: zonePaths,
  description: "Zone configuration (docs/configuration.md).",
  parameters: {
    Zone: parameterOf(ZONE_NAME, { name: "zone", in: "path", example: "www.example.com" }),
  },
  // The answer of every zone operation; the route builds it by hand, so the document alone shows this schema.
  documentOnly: () =>
    named(z.intersection(ZONE_SETTINGS(), z.object({ zone: z.string(), version: z.int(), modified_on: dateTime() })), {
      id: "Zone",
      description: "The zone's settings as written, with its name and the document's revision.",
    }),
};
