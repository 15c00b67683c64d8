/**
 * What a draft preview compiles, and what it does not (docs/custom-errors.md "Draft preview", "Bounds"):
 *
 * - the saved configuration is the compiled zone's (src/edge/compiled-zone.ts: compiled once per zone version, the
 *   value traffic uses); the one figure the draft's validation needs of the other phases, their regex program size
 *   (the zone-wide cap), is computed once per compiled zone version, through the engine's one compile cache, where
 *   the compiled zone already put its expressions;
 * - a draft is validated and compiled once per content: the result (a refusal too) is kept in a bounded cache keyed
 *   by the zone, the version the draft applies to and the SHA-256 of the draft's JSON, so the same draft previewed
 *   again (the same request in another format, a retry, eight parallel calls) compiles nothing. A cached draft never
 *   serves traffic: only the preview reads this cache;
 * - a new draft's expressions are compiled first, in turns with traffic (turns.ts: `compilesPerTurn` and
 *   `compileCharsPerTurn` a turn), into the engine's one compile cache and the linter's analysis cache, where the
 *   validation, the draft's rule list and the linter then find them; the validation and the rule list take a turn
 *   each after that: a draft of hundreds of costly expressions never runs in one synchronous piece.
 */
import { compileExpression } from "../../rules/rule-list";
import { BoundedCache } from "../../shared/bounded-cache";
import { sha256Hex } from "../../shared/crypto";
import { ok, type Result } from "../../shared/result";
import { compileCustomErrors, type CompiledCustomErrors } from "../../edge/custom-errors/compiled";
import type { CompiledZone } from "../../edge/compiled-zone";
import { PHASE_SPECS, PHASES, type Phase } from "../../state/zone/rulesets/phases";
import { storedRuleset } from "../../state/zone/rulesets/stored";
import type { Zone } from "../../state/zone/schema";
import type { ZoneApiFailure } from "../kit/zone-section";
import { applyDraft, type Draft, type DraftPreview } from "./draft";
import { inTurn, MANAGEMENT_BUDGET, takeTurn, Turns } from "../explain/turns";
import { analyseForLint } from "../../state/zone/lint/lint";

export const DRAFT_CACHE_LIMITS = {
  /** Drafts kept per isolate… */
  entries: 64,
  /** …and at most this many characters of draft JSON among them (what a compiled draft holds grows with it). */
  chars: 8 * 1024 * 1024,
} as const;

/** A draft validated against a zone version, and its custom errors compiled as a saved version would be. */
export interface CompiledDraft extends DraftPreview {
  readonly compiled: CompiledCustomErrors;
}

interface Entry {
  readonly result: Result<CompiledDraft, ZoneApiFailure>;
  readonly chars: number;
}

const drafts = new BoundedCache<string, Entry>({
  capacity: DRAFT_CACHE_LIMITS.entries,
  maxBytes: DRAFT_CACHE_LIMITS.chars,
  sizeOf: (entry) => entry.chars,
});

/** The other phases' program sizes, per compiled zone version and phase (a WeakMap: gone with the compiled value). */
const savedProgramSizes = new WeakMap<CompiledZone, Map<Phase, number>>();

/** What the preview compiled since the isolate started (for tests and benchmarks: never reset). */
export interface DraftCacheStats {
  /** Times the saved rules' program size was computed (once per compiled zone version). */
  savedProgramSizes: number;
  /** Drafts validated and compiled (cache misses). */
  draftCompiles: number;
  /** Drafts answered from the cache. */
  draftHits: number;
}

const stats: DraftCacheStats = { savedProgramSizes: 0, draftCompiles: 0, draftHits: 0 };

/** A copy of the counters. */
export function draftCacheStats(): DraftCacheStats {
  return { ...stats };
}

/**
 * The regex program size of the zone's saved rules outside `phase`, as the write's zone-wide cap counts it (every
 * stored rule, disabled ones too), once per compiled zone version.
 */
export function savedProgramSize(compiled: CompiledZone, zone: Zone, phase: Phase): number {
  let sizes = savedProgramSizes.get(compiled);
  if (sizes === undefined) {
    sizes = new Map();
    savedProgramSizes.set(compiled, sizes);
  }
  const known = sizes.get(phase);
  if (known !== undefined) return known;
  stats.savedProgramSizes++;
  let size = 0;
  for (const other of PHASES) {
    if (other === phase) continue;
    for (const rule of storedRuleset(zone.document, other)?.rules ?? []) {
      // The engine's one compile cache (rules/rule-list.ts), keyed by field set and text: the compiled zone compiled
      // its enabled rules through it, so those are hits; the same field set as the write's validator.
      const expression = compileExpression(other, rule.expression);
      if (expression.ok) size += expression.value.programSize;
    }
  }
  sizes.set(phase, size);
  return size;
}

/**
 * The draft applied to the zone's version `compiled` (validated as a write, its custom errors compiled), from the
 * cache when the same draft was seen for the same version.
 */
export async function compiledDraft(
  zone: Zone,
  compiled: CompiledZone,
  draft: Draft,
): Promise<Result<CompiledDraft, ZoneApiFailure>> {
  // Writing and hashing a draft near the 1 MiB limit is a piece of its own too: in a turn (turns.ts).
  const turn = await takeTurn();
  let text: string;
  let key: string;
  try {
    text = JSON.stringify(draft);
    key = `${zone.zone}\u0000${zone.version}\u0000${await sha256Hex(text)}`;
  } finally {
    turn.end();
  }
  const hit = drafts.get(key);
  if (hit !== undefined) {
    stats.draftHits++;
    return hit.result;
  }
  stats.draftCompiles++;
  await compileInTurns(zone, draft);
  // Validating the draft and compiling its rule list are two more synchronous pieces (a few hundred rules each), so
  // each takes a turn of its own (turns.ts `inTurn`).
  const applied = await inTurn(() => applyDraft(zone, draft, (phase) => savedProgramSize(compiled, zone, phase)));
  const result: Result<CompiledDraft, ZoneApiFailure> = applied.ok
    ? ok({
        ...applied.value,
        // Compiled exactly as a saved version is (src/edge/custom-errors/compiled.ts), with the zone's saved URL
        // normalisation.
        compiled: await inTurn(() =>
          compileCustomErrors({ ...zone, document: applied.value.document }, compiled.normalization),
        ),
      })
    : applied;
  drafts.set(key, { result, chars: text.length });
  return result;
}

/**
 * Compiles the draft's custom error expressions into the engine's compile cache, and analyses them for the rule
 * linter (docs/lint.md) into its cache, in turns (turns.ts: at most `MANAGEMENT_BUDGET.compilesPerTurn` expressions
 * and `compileCharsPerTurn` characters of them a turn, at least one), so that validating, compiling and linting the
 * draft afterwards find them done. Only as many rules as the plan allows: a longer list is refused by the validation
 * before anything is compiled.
 */
async function compileInTurns(zone: Zone, draft: Readonly<Record<string, unknown>>): Promise<void> {
  if (!Array.isArray(draft.rules)) return;
  const max = PHASE_SPECS.http_custom_errors.maxRules[zone.settings.plan];
  if (draft.rules.length > max) return;
  const sources: string[] = [];
  for (const rule of draft.rules as unknown[]) {
    if (typeof rule === "object" && rule !== null && "expression" in rule && typeof rule.expression === "string")
      sources.push(rule.expression);
  }
  const turns = new Turns();
  try {
    for (const batch of compileBatches(sources)) {
      // A whole turn each: compiling is not counted in units, so the turn ends with its compiles.
      await turns.run(() => {
        for (const source of batch) {
          compileExpression("http_custom_errors", source);
          analyseForLint(source);
        }
        return Promise.resolve({ value: undefined, units: MANAGEMENT_BUDGET.turnUnits });
      });
    }
  } finally {
    turns.close();
  }
}

/** The expressions of each compile turn, in order: up to `compilesPerTurn` of them and `compileCharsPerTurn` characters. */
export function compileBatches(sources: readonly string[]): string[][] {
  const batches: string[][] = [];
  let batch: string[] = [];
  let chars = 0;
  for (const source of sources) {
    if (
      batch.length > 0 &&
      (batch.length >= MANAGEMENT_BUDGET.compilesPerTurn ||
        chars + source.length > MANAGEMENT_BUDGET.compileCharsPerTurn)
    ) {
      batches.push(batch);
      batch = [];
      chars = 0;
    }
    batch.push(source);
    chars += source.length;
  }
  if (batch.length > 0) batches.push(batch);
  return batches;
}
