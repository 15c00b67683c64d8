/**
 * Proactive content negotiation on `Accept` (RFC 9110 §12.5.1), generic over what the caller can produce.
 *
 * Why a hand-written scanner rather than `split` + regular expressions: the header is attacker-controlled
 * (up to the platform's header size limit), so the parser makes ONE left-to-right pass, slices only the
 * type and subtype of each member, and compares them against a fixed, small list of offers. Work is therefore
 * O(header length × offers) with no backtracking, and a malformed member is skipped, never fatal
 * (docs/negotiation.md). The rules and their reasons are in docs/negotiation.md.
 */

/** What a caller can produce, and what to answer when the client expresses no usable preference. */
export interface NegotiationTable<T extends string> {
  /** Lower-case media types the caller can produce, in the server's order of preference (the last tie-break). */
  readonly offers: readonly T[];
  /** Which offer a wildcard range picks when it is the deciding range of several offers (`"*\/*"` → HTML). */
  readonly wildcardDefaults: Readonly<Record<string, T>>;
  /** Nothing acceptable (every offer excluded, unmatched or the header unusable) → this; never a 406. */
  readonly fallback: T;
}

/** Specificity of the range that matched an offer (docs/negotiation.md: exact > `type/*` > `*\/*`). */
const Specificity = { None: -1, Any: 0, Type: 1, Exact: 2 } as const;
type Specificity = (typeof Specificity)[keyof typeof Specificity];

/** An offer split once into its two halves, so matching never re-splits. */
interface CompiledOffer<T extends string> {
  readonly mediaType: T;
  readonly type: string;
  readonly subtype: string;
}

interface CompiledTable<T extends string> {
  readonly offers: readonly CompiledOffer<T>[];
  readonly table: NegotiationTable<T>;
}

/** Tables are module constants in practice: compile each once per isolate, keyed by identity. */
const compiled = new WeakMap<NegotiationTable<string>, CompiledTable<string>>();

function compile<T extends string>(table: NegotiationTable<T>): CompiledTable<T> {
  const known = compiled.get(table) as CompiledTable<T> | undefined;
  if (known !== undefined) return known;
  const offers = table.offers.map((mediaType) => {
    const slash = mediaType.indexOf("/");
    return { mediaType, type: mediaType.slice(0, slash), subtype: mediaType.slice(slash + 1) };
  });
  const result: CompiledTable<T> = { offers, table };
  compiled.set(table, result);
  return result;
}

/**
 * The offer the client prefers, by the rules of docs/negotiation.md.
 *
 * @example negotiate("text/markdown, application/json", table) // "text/markdown" (equal q: first listed)
 */
export function negotiate<T extends string>(accept: string | null, table: NegotiationTable<T>): T {
  // RFC 9110 §12.5.1: "A request without any Accept header field implies that the user agent will accept
  // any media type", i.e. exactly `*/*`.
  const header = accept ?? "*/*";
  const { offers } = compile(table);
  const count = offers.length;
  // Per offer: the deciding range's specificity, its q (in thousandths, exact integers) and its position.
  const specificity = new Array<Specificity>(count).fill(Specificity.None);
  const quality = new Array<number>(count).fill(0);
  const position = new Array<number>(count).fill(-1);

  const length = header.length;
  let index = 0;
  let member = 0;
  while (index < length) {
    const parsed = parseMember(header, index);
    index = parsed.next;
    if (parsed.range === null) continue; // empty list element or malformed member: skipped
    const { type, subtype, q } = parsed.range;
    const memberPosition = member++;
    for (let i = 0; i < count; i++) {
      const offer = offers[i] as CompiledOffer<T>;
      const s = specificityOf(type, subtype, offer);
      if (s === Specificity.None) continue;
      // The most specific matching range decides (docs/negotiation.md). Among equally specific duplicates
      // (`text/html;q=0.2, text/html`), the higher q, then the earlier one, as jshttp/negotiator does.
      const current = specificity[i] as Specificity;
      if (s > current || (s === current && q > (quality[i] as number))) {
        specificity[i] = s;
        quality[i] = q;
        position[i] = memberPosition;
      }
    }
  }

  // Highest q, then most specific deciding range, then the range that appears first (docs/negotiation.md).
  let best = -1;
  for (let i = 0; i < count; i++) {
    // q=0 means "not acceptable" (RFC 9110 §12.4.2), also when a wildcard elsewhere would match.
    if ((quality[i] as number) === 0) continue;
    if (best === -1 || ranks(i, best, quality, specificity, position)) best = i;
  }
  if (best === -1) return table.fallback;
  const winner = offers[best] as CompiledOffer<T>;
  const decidedBy = specificity[best];
  if (decidedBy === Specificity.Exact) return winner.mediaType;

  // A wildcard decided, so every offer it decided ties with the winner. If its own default is among them
  // (decided by the same member), the default wins (`*/*` → HTML, `text/*` → Markdown); otherwise the
  // server's order of offers has already picked.
  const range = decidedBy === Specificity.Any ? "*/*" : `${winner.type}/*`;
  const preferred = table.wildcardDefaults[range];
  if (preferred === undefined) return winner.mediaType;
  const p = offers.findIndex((offer) => offer.mediaType === preferred);
  return p !== -1 && position[p] === position[best] ? preferred : winner.mediaType;
}

/** True when offer `a` ranks strictly above offer `b`; equal rank keeps the server's order. */
function ranks(a: number, b: number, q: number[], s: Specificity[], pos: number[]): boolean {
  const dq = (q[a] as number) - (q[b] as number);
  if (dq !== 0) return dq > 0;
  const ds = (s[a] as number) - (s[b] as number);
  if (ds !== 0) return ds > 0;
  return (pos[a] as number) < (pos[b] as number);
}

function specificityOf(type: string, subtype: string, offer: CompiledOffer<string>): Specificity {
  if (type === "*") return Specificity.Any; // the parser only lets `*/*` through with a `*` type
  if (type !== offer.type) return Specificity.None;
  if (subtype === "*") return Specificity.Type;
  return subtype === offer.subtype ? Specificity.Exact : Specificity.None;
}

// ---------------------------------------------------------------------------------------------------
// The scanner. Grammar (RFC 9110 §12.5.1, §5.6.2, §5.6.4, §5.6.6, §12.4.2):
//   Accept      = #( media-range [ weight ] )          ; "#": comma list, empty elements allowed
//   media-range = ( "*/*" / type "/*" / type "/" subtype ) parameters
//   parameters  = *( OWS ";" OWS [ token "=" ( token / quoted-string ) ] )
//   weight      = OWS ";" OWS "q=" qvalue ; qvalue = "0" [ "." 0*3DIGIT ] / "1" [ "." 0*3("0") ]
// ---------------------------------------------------------------------------------------------------

/** One member's range and its q in thousandths (1000 = q=1), or `null` for an empty or malformed member. */
interface ParsedMember {
  readonly range: { readonly type: string; readonly subtype: string; readonly q: number } | null;
  /** Where the next member starts (just past the comma, or the end). */
  readonly next: number;
}

const COMMA = 0x2c;
const SEMICOLON = 0x3b;
const SLASH = 0x2f;
const EQUALS = 0x3d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const DOT = 0x2e;
const ZERO = 0x30;
const ONE = 0x31;
const NINE = 0x39;

/** RFC 9110 §5.6.2 tchar, as a lookup table over ASCII. */
const TCHAR = (() => {
  const table = new Uint8Array(128);
  for (let c = 0x30; c <= 0x39; c++) table[c] = 1;
  for (let c = 0x41; c <= 0x5a; c++) table[c] = 1;
  for (let c = 0x61; c <= 0x7a; c++) table[c] = 1;
  for (const c of "!#$%&'*+-.^_`|~") table[c.charCodeAt(0)] = 1;
  return table;
})();

const isTchar = (code: number): boolean => code < 128 && TCHAR[code] === 1;
const isOws = (code: number): boolean => code === 0x20 || code === 0x09;

function skipOws(s: string, i: number): number {
  while (i < s.length && isOws(s.charCodeAt(i))) i++;
  return i;
}

function skipToken(s: string, i: number): number {
  while (i < s.length && isTchar(s.charCodeAt(i))) i++;
  return i;
}

/** The end of a malformed member: just past the next comma (a skipped member never stops the scan). */
function skipMember(s: string, i: number): ParsedMember {
  const comma = s.indexOf(",", i);
  return { range: null, next: comma === -1 ? s.length : comma + 1 };
}

/** End of a quoted-string starting at the opening quote (RFC 9110 §5.6.4), or -1 when unterminated. */
function skipQuoted(s: string, i: number): number {
  for (let j = i + 1; j < s.length; j++) {
    const c = s.charCodeAt(j);
    if (c === QUOTE) return j + 1;
    if (c === BACKSLASH) j++;
  }
  return -1;
}

/** RFC 9110 §12.4.2 qvalue in thousandths, or -1 when malformed or out of 0..1. */
function parseQvalue(s: string, start: number, end: number): number {
  const length = end - start;
  if (length < 1 || length > 5) return -1; // "1", "0.5", "0.125", but never "1.0000"
  const lead = s.charCodeAt(start);
  if (lead !== ZERO && lead !== ONE) return -1;
  if (length === 1) return lead === ONE ? 1000 : 0;
  if (s.charCodeAt(start + 1) !== DOT) return -1;
  let thousandths = 0;
  for (let k = 0; k < 3; k++) {
    const at = start + 2 + k;
    const digit = at < end ? s.charCodeAt(at) : ZERO;
    if (digit < ZERO || digit > NINE) return -1;
    thousandths = thousandths * 10 + (digit - ZERO);
  }
  if (lead === ONE) return thousandths === 0 ? 1000 : -1; // "1.5" is out of range
  return thousandths;
}

function parseMember(s: string, start: number): ParsedMember {
  let i = skipOws(s, start);
  if (i >= s.length) return { range: null, next: s.length };
  if (s.charCodeAt(i) === COMMA) return { range: null, next: i + 1 }; // empty element (RFC 9110 §5.6.1)

  const typeStart = i;
  i = skipToken(s, i);
  if (i === typeStart || s.charCodeAt(i) !== SLASH) return skipMember(s, i);
  // docs/negotiation.md: case-insensitive. Only tokens (ASCII) are lower-cased, so no non-ASCII character can
  // fold into a name (U+212A KELVIN SIGN lower-cases to "k").
  const type = s.slice(typeStart, i).toLowerCase();
  const subtypeStart = ++i;
  i = skipToken(s, i);
  if (i === subtypeStart) return skipMember(s, i);
  const subtype = s.slice(subtypeStart, i).toLowerCase();
  // `*` is a tchar, so reject what the grammar does not allow: `*/json`, `te*t/html`, `text/ht*`.
  if (type === "*" ? subtype !== "*" : type.includes("*") || (subtype !== "*" && subtype.includes("*"))) {
    return skipMember(s, i);
  }

  let q = 1000;
  let sawQ = false;
  for (;;) {
    i = skipOws(s, i);
    if (i >= s.length) break;
    const c = s.charCodeAt(i);
    if (c === COMMA) {
      i++;
      break;
    }
    if (c !== SEMICOLON) return skipMember(s, i);
    i = skipOws(s, i + 1);
    const nameStart = i;
    i = skipToken(s, i);
    if (i === nameStart) continue; // empty parameter: `text/html;;q=0.5` is valid (RFC 9110 §5.6.6)
    if (s.charCodeAt(i) !== EQUALS) return skipMember(s, i); // no whitespace around "="
    const isQ = i - nameStart === 1 && (s.charCodeAt(nameStart) | 0x20) === 0x71; // "q" or "Q"
    const valueStart = ++i;
    if (s.charCodeAt(i) === QUOTE) {
      if (isQ) return skipMember(s, i); // the weight is never quoted (RFC 9110 §12.4.2)
      i = skipQuoted(s, i);
      if (i === -1) return { range: null, next: s.length };
      continue;
    }
    i = skipToken(s, i);
    if (!isQ) {
      if (i === valueStart) return skipMember(s, i); // `charset=` without a value
      continue;
    }
    if (sawQ) return skipMember(s, i); // two weights: ambiguous, so invalid
    sawQ = true;
    q = parseQvalue(s, valueStart, i);
    if (q === -1) return skipMember(s, i); // `q=`, `q=abc`, `q=1.5`, `q=-1`, `q=0.1234`
  }
  return { range: { type, subtype, q }, next: i };
}
