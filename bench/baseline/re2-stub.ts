/**
 * Stands in for `re2js` in the startup suite's "without the RE2 engine" Worker (bench/suites/startup.ts): the same
 * Worker with the engine's 267 KiB left out of the bundle, to see what loading it costs a fresh isolate. Never
 * reached by the suite's requests (no rule with a regular expression is configured); throws if it were.
 */
export class RE2JS {
  static readonly DISABLE_UNICODE_GROUPS = 8;
  static compile(): never {
    throw new Error("re2js is stubbed out in this benchmark build");
  }
}

/** The engine's set of patterns (src/rules/regex-set.ts), stubbed the same way. */
export class RE2Set {
  static readonly UNANCHORED = 0;
  constructor() {
    throw new Error("re2js is stubbed out in this benchmark build");
  }
}
