/**
 * A zone configured in every section a bundle shows, the example zone's way (fixtures/example-zone.json): its
 * settings, its three phases' rules, its IP access rule and its 500 page, plus telemetry with a secret header, an
 * alert policy and tags. Written through the real API, as an operator would.
 */
import example from "../../../../fixtures/example-zone.json";
import { api, apiOk, entrypoint } from "../../support/envelope";
import { uniqueZone } from "../../support/origin";

/** The secret the telemetry settings carry: a bundle must never show it. */
export const TELEMETRY_SECRET = "very-secret-api-key-of-the-backend";

export async function exampleZone(label = "bundle"): Promise<string> {
  const zone = uniqueZone(label);
  await apiOk("PUT", `/zones/${zone}`, { ...example.settings, origin: "http://127.0.0.1:9" });
  for (const [phase, ruleset] of Object.entries(example.rulesets)) {
    await apiOk("PUT", entrypoint(zone, phase), ruleset);
  }
  await apiOk("PUT", `/zones/${zone}/access_rules`, example.access_rules);
  await apiOk("PUT", `/zones/${zone}/custom_pages/500_errors`, {
    state: "customized",
    content: example.custom_pages["500_errors"],
  });
  await apiOk("PUT", `/zones/${zone}/telemetry`, {
    otlp: {
      endpoint: "https://otlp.example.net/v1/traces",
      protocol: "http/protobuf",
      headers: { "x-api-key": TELEMETRY_SECRET },
    },
    sample: { errors: 1, requests: 0.01 },
  });
  await apiOk("POST", `/zones/${zone}/analytics/alerts`, {
    name: "Origin failing",
    kind: "threshold",
    metric: "error_rate",
    window_minutes: 5,
    above: 0.05,
    webhook: { url: "https://hooks.example.com/edge-alerts" },
  });
  const tagged = await api("PUT", `/zones/${zone}/tags`, {
    resource_type: "zone",
    resource_id: zone,
    tags: { env: "production", team: "shop" },
  });
  if (tagged.status !== 200) throw new Error(`tags: ${tagged.text}`);
  return zone;
}
