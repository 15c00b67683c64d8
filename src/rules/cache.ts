/**
 * A bounded per-isolate cache of compiled rules (contract §8: caches are bounded; AGENTS.md: compile once per
 * config version). Keyed by source text for one scheme; failures are cached too, so a bad stored rule is not
 * re-parsed on every error. Least recently used entries leave first.
 */
import { compile, type CompileOptions, type Rule } from "./rule";
import type { RuleError } from "./errors";
import type { Scheme } from "./scheme";
import type { Result } from "../shared/result";

export const DEFAULT_RULE_CACHE_SIZE = 2048;

export class RuleCache {
  private readonly entries = new Map<string, Result<Rule, RuleError>>();

  constructor(
    readonly scheme: Scheme,
    readonly capacity: number = DEFAULT_RULE_CACHE_SIZE,
    private readonly options: CompileOptions = {},
  ) {}

  get size(): number {
    return this.entries.size;
  }

  /** The compiled rule for `source`, compiling it on a miss. */
  get(source: string): Result<Rule, RuleError> {
    const hit = this.entries.get(source);
    if (hit !== undefined) {
      // Re-insert: a Map iterates in insertion order, so the first key is the least recently used.
      this.entries.delete(source);
      this.entries.set(source, hit);
      return hit;
    }
    const compiled = compile(source, this.scheme, this.options);
    this.entries.set(source, compiled);
    if (this.entries.size > this.capacity) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    return compiled;
  }
}
