/**
 * A bundle is all sections or none (docs/config-as-code.md "What atomic means"): the tags and alert policies are
 * checked by their stores before anything is written, and a store that refuses after others were written (a change
 * made by someone else in between) has those writes put back, so the zone ends as it began.
 *
 * "In between" is made with the stores themselves: the test holds a Durable Object (blockConcurrencyWhile in
 * runInDurableObject), so the bundle's request waits at that store while the test writes elsewhere. Where the
 * request is when it waits cannot be observed, only given time to get there: an attempt whose request was not yet
 * there ends in another valid outcome (checked too) and the next attempt gives it twice the time.
 */
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { api, apiOk } from "../../support/envelope";
import { exampleZone } from "./support";
import { alertHolder } from "../../../../src/api/bundle/read";

const ACCOUNT = "0123456789abcdef0123456789abcdef";

type Bundle = Record<string, unknown> & {
  settings: Record<string, unknown>;
  tags: Record<string, string>;
  alert_policies: Record<string, Record<string, unknown>>;
};

const read = async (zone: string) => {
  const answer = await api<Bundle>("GET", `/zones/${zone}/bundle`);
  expect(answer.status).toBe(200);
  return { bundle: answer.body.result, text: answer.text, etag: answer.headers.get("ETag") ?? "" };
};
const put = (zone: string, bundle: unknown, query = "") => api("PUT", `/zones/${zone}/bundle${query}`, bundle);

/** How many changes the zone's own tags have had (the TagStore's history, one entry per key changed). */
async function tagChanges(zone: string): Promise<number> {
  const history = await api<unknown[]>("GET", `/zones/${zone}/tags/history`);
  expect(history.status).toBe(200);
  return history.body.result.length;
}

/** Holds a Durable Object: nothing else runs in it until `release` (the request sent to it meanwhile waits). */
async function hold<T extends Rpc.DurableObjectBranded>(
  stub: DurableObjectStub<T>,
): Promise<{ release: () => Promise<void> }> {
  let open = (): void => undefined;
  const gate = new Promise<void>((resolve) => (open = resolve));
  let taken = (): void => undefined;
  const holding = new Promise<void>((resolve) => (taken = resolve));
  const held = runInDurableObject(stub, (_: unknown, state) =>
    state.blockConcurrencyWhile(async () => {
      taken();
      await gate;
    }),
  );
  await holding;
  return {
    release: async () => {
      open();
      await held;
    },
  };
}

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const writerOf = (zone: string) => env.ZONE_WRITER.get(env.ZONE_WRITER.idFromName(zone));
const tagStoreOf = (account: string) => env.TAG_STORE.get(env.TAG_STORE.idFromName(account));
/** The zone's last version, as its writer counts them. */
const versionOf = (zone: string) =>
  runInDurableObject(writerOf(zone), (_: unknown, state) => state.storage.kv.get<number>("version") ?? 0);

/** Runs `attempt` with 25, 50, 100 … ms until it reports the outcome the test is about (at most 7 tries). */
async function untilInBetween(attempt: (ms: number) => Promise<boolean>): Promise<void> {
  for (let ms = 25, tries = 0; tries < 7; ms *= 2, tries++) if (await attempt(ms)) return;
  throw new Error("the request never reached the store held in 7 tries");
}

describe("PUT /zones/{zone}/bundle is all sections or none", () => {
  it("an enforced tag policy refuses the bundle before anything is written, a plan too", async () => {
    const zone = await exampleZone("bundle-policy");
    await apiOk("PUT", `/accounts/${ACCOUNT}/tags/policy`, { mode: "enforced", allowed_keys: ["env", "team"] });
    try {
      const before = await read(zone);
      const edited = {
        ...before.bundle,
        settings: { ...before.bundle.settings, read_timeout: 17 },
        tags: { ...before.bundle.tags, "cost-centre": "42" },
      };
      for (const query of ["", "?plan=true"]) {
        const refused = await put(zone, edited, query);
        expect(refused.status).toBe(400);
        expect(refused.body.errors).toEqual([
          {
            code: 20150,
            message:
              'Invalid bundle: tags.cost-centre is not a key allowed by the account\'s tag policy (enforced; docs/tags-api.md "Policies")',
          },
        ]);
      }
      expect((await read(zone)).text).toBe(before.text);
    } finally {
      await apiOk("PUT", `/accounts/${ACCOUNT}/tags/policy`, { mode: "advisory" });
    }
  });

  it("the zone written after the tags were: the tags are put back, and nothing was changed", async () => {
    await untilInBetween(async (ms) => {
      const zone = await exampleZone("bundle-undo-tags");
      const before = await read(zone);
      const changes = await tagChanges(zone);
      const edited = {
        ...before.bundle,
        settings: { ...before.bundle.settings, read_timeout: 17 },
        tags: { ...before.bundle.tags, owner: "ops" },
      };
      // The request waits at the alert policies, after reading the zone and before any write; meanwhile the zone
      // is written (a PATCH that changes nothing but its version), so the bundle's zone write is refused after its
      // tags were written.
      const holder = await hold(alertHolder(env, zone));
      const answer = put(zone, edited);
      await wait(ms);
      await apiOk("PATCH", `/zones/${zone}`, { read_timeout: before.bundle.settings.read_timeout });
      await holder.release();
      const done = await answer;
      const after = await read(zone);
      if (done.status === 200) {
        // The PATCH came first: the bundle read the zone after it and applied whole.
        expect(after.bundle.tags).toEqual(edited.tags);
        expect(after.bundle.settings.read_timeout).toBe(17);
        return false;
      }
      expect(done.status).toBe(412);
      expect(done.body.errors[0]?.code).toBe(20151);
      expect(done.body.errors[0]?.message).toMatch(/changed since the bundle was read .*nothing was changed$/);
      expect(after.text).toBe(before.text);
      // Written and put back: two entries for the one key, not none.
      expect(await tagChanges(zone)).toBe(changes + 2);
      return true;
    });
  });

  it("alert policies changed after the zone and tags were written: both are put back, and nothing was changed", async () => {
    await untilInBetween(async (ms) => {
      const zone = await exampleZone("bundle-undo-all");
      const before = await read(zone);
      const changes = await tagChanges(zone);
      const version = await versionOf(zone);
      const [id = "", policy = {}] = Object.entries(before.bundle.alert_policies)[0] ?? [];
      const edited = {
        ...before.bundle,
        settings: { ...before.bundle.settings, read_timeout: 17 },
        tags: { ...before.bundle.tags, owner: "ops" },
        alert_policies: { [id]: { ...policy, above: 0.1 } },
      };
      // The request waits at the tags (after reading the zone), then, with the zone's writer held, at its zone
      // write (after its checks and its tags write); meanwhile the policy is written as it is (a new write time,
      // the same definition), so the bundle's policies are refused after its zone document and tags were written.
      const tags = await hold(tagStoreOf(ACCOUNT));
      const answer = put(zone, edited);
      await wait(ms);
      const writer = await hold(writerOf(zone));
      await tags.release();
      await wait(ms);
      await runInDurableObject(alertHolder(env, zone), async (analytics) => {
        const stored = analytics.getAlert(id);
        if (stored !== null) await analytics.updateAlert(id, stored.spec, stored.updatedAt + 60_000);
      });
      await writer.release();
      const done = await answer;
      const after = await read(zone);
      if (done.status === 200) {
        // The request had not read the zone before the writer was held: it read the policy as rewritten.
        expect(after.bundle.alert_policies[id]?.above).toBe(0.1);
        return false;
      }
      expect(done.status).toBe(412);
      expect(done.body.errors[0]?.code).toBe(20151);
      expect(after.text).toBe(before.text);
      const message = done.body.errors[0]?.message ?? "";
      if (!/alert policies changed/.test(message) || (await tagChanges(zone)) === changes) return false;
      // Refused at the last store: the zone document and the tags were written, then put back.
      expect(await tagChanges(zone)).toBe(changes + 2);
      expect(await versionOf(zone)).toBe(version + 2);
      return true;
    });
  });
});
