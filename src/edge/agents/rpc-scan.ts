/**
 * Reads what an MCP error answer needs from a JSON-RPC body as its bytes go by (docs/agents.md "Reading the id"),
 * keeping none of them: the forwarded body is not held for the answer a slow or failing origin may need. The scan
 * checks the whole body is JSON (as `JSON.parse` would: same grammar, a leading byte order mark skipped as
 * `TextDecoder` does) and keeps, for the message (a top-level object) or each message of a batch (a top-level
 * array), only its `jsonrpc`, `id` and `method` members, when they are strings, numbers, booleans or null of at
 * most `MEMBER_BYTES`; any other value of those members is kept as `{}`, which no request has. Its state is the
 * nesting (one byte a level) and those few members.
 */

/** The longest member value read (its JSON text): an id or method of MCP is short; a longer one is not a request's. */
export const MEMBER_BYTES = 4096;

/** The longest key that can still be `jsonrpc` once its escapes are decoded (`\u006a` is six bytes a letter). */
const KEY_BYTES = 64;

const MEMBERS = new Set(["jsonrpc", "id", "method"]);

/** What a message is reduced to: the three members, as `JSON.parse` would give them (or `{}`). */
type Message = Record<string, unknown>;

const enum S {
  Value, // a value must come
  ValueOrClose, // just after `[`: a value or `]`
  KeyOrClose, // just after `{`: a key or `}`
  Key, // after `,` in an object: a key
  Colon,
  After, // a value ended: `,`, a closing bracket, or the end
  Str,
  Esc,
  Hex,
  Lit,
  Minus,
  Zero,
  Int,
  Dot,
  Frac,
  Exp,
  ExpSign,
  ExpInt,
  Done,
  Failed,
}

const OBJECT = 1;
const ARRAY = 2;

export class RpcScanner {
  private state: S = S.Value;
  private stack = new Uint8Array(64);
  private depth = 0;
  private start = true; // the first byte: a byte order mark is skipped
  private bom = 0;
  private strIsKey = false;
  private hex = 0;
  private literal = "";
  private literalAt = 0;
  /** The depth of a message's members: 1 for one message, 2 for a batch's; 0 before the first byte. */
  private messageDepth = 0;
  private messages: (Message | null)[] = [];
  private current: Message | null = null;
  private key: number[] | null = null;
  /** The member whose value is being read, and its bytes (`null` past `MEMBER_BYTES`). */
  private member: string | null = null;
  private value: number[] | null = null;

  push(chunk: Uint8Array): void {
    const end = chunk.length;
    for (let i = 0; i < end; i++) {
      if (this.state === S.Failed) return;
      let b = chunk[i] ?? 0;
      if (this.state === S.Str && this.value === null && !(this.strIsKey && this.key !== null)) {
        // Inside a string nobody keeps (most of a large body): only a quote, a backslash or a control byte matters.
        while (b !== 0x22 && b !== 0x5c && b >= 0x20 && i + 1 < end) b = chunk[++i] ?? 0;
        if (b !== 0x22 && b !== 0x5c && b >= 0x20) return;
      }
      this.step(b);
    }
  }

  /**
   * The body reduced to its messages, as `JSON.parse` then a read of the three members would see it: one message
   * object, an array of them (`null` for a batch item that is not an object), another JSON value as `null`, or
   * `undefined` when the body is not JSON.
   */
  finish(): unknown {
    // A number at the very end has no byte after it to end it.
    if (this.depth === 0 && isNumberEnd(this.state)) this.endScalar();
    if (this.state !== S.Done) return undefined;
    if (this.messageDepth === 1) return this.messages[0] ?? null;
    if (this.messageDepth === 2) return this.messages;
    return null;
  }

  private step(b: number): void {
    if (this.start) {
      // TextDecoder drops one leading U+FEFF (EF BB BF), which JSON.parse would refuse.
      const bom = [0xef, 0xbb, 0xbf];
      if (b === bom[this.bom]) {
        this.bom += 1;
        if (this.bom === 3) this.start = false;
        return;
      }
      if (this.bom > 0) return this.fail();
      this.start = false;
    }
    switch (this.state) {
      case S.Str:
        return this.inString(b);
      case S.Esc:
        this.keep(b);
        if (b === 0x75) {
          this.hex = 0;
          this.state = S.Hex;
        } else if ('"\\/bfnrt'.includes(String.fromCharCode(b))) this.state = S.Str;
        else this.fail();
        return;
      case S.Hex:
        if (!isHex(b)) return this.fail();
        this.keep(b);
        this.hex += 1;
        if (this.hex === 4) this.state = S.Str;
        return;
      case S.Lit:
        if (b !== this.literal.charCodeAt(this.literalAt)) return this.fail();
        this.keep(b);
        this.literalAt += 1;
        if (this.literalAt === this.literal.length) this.endScalar();
        return;
      case S.Minus:
      case S.Zero:
      case S.Int:
      case S.Dot:
      case S.Frac:
      case S.Exp:
      case S.ExpSign:
      case S.ExpInt:
        if (this.inNumber(b)) return;
        if (!isNumberEnd(this.state)) return this.fail();
        this.endScalar();
        return this.step(b);
      default:
        return this.structural(b);
    }
  }

  private structural(b: number): void {
    if (b === 0x20 || b === 0x09 || b === 0x0a || b === 0x0d) return;
    switch (this.state) {
      case S.Value:
      case S.ValueOrClose:
        if (b === 0x5d && this.state === S.ValueOrClose) return this.close(ARRAY);
        return this.beginValue(b);
      case S.KeyOrClose:
      case S.Key:
        if (b === 0x7d && this.state === S.KeyOrClose) return this.close(OBJECT);
        if (b !== 0x22) return this.fail();
        this.strIsKey = true;
        this.key = this.depth === this.messageDepth && this.current !== null ? [] : null;
        this.state = S.Str;
        return;
      case S.Colon:
        if (b !== 0x3a) return this.fail();
        this.member = this.memberOfKey();
        this.state = S.Value;
        return;
      case S.After: {
        const top = this.stack[this.depth - 1];
        if (b === 0x2c) this.state = top === OBJECT ? S.Key : S.Value;
        else if (b === 0x7d && top === OBJECT) this.close(OBJECT);
        else if (b === 0x5d && top === ARRAY) this.close(ARRAY);
        else this.fail();
        return;
      }
      default: // Done: only whitespace may follow the value
        return this.fail();
    }
  }

  private beginValue(b: number): void {
    if (this.depth === 0) this.messageDepth = b === 0x7b ? 1 : b === 0x5b ? 2 : -1;
    // A batch item that is not an object is not a message; one that is starts one.
    if (this.depth === 1 && this.messageDepth === 2) this.messages.push(null);
    if (b === 0x7b || b === 0x5b) {
      this.setMember({}); // a container is no request's id, method or version
      if (b === 0x7b && this.depth === this.messageDepth - 1) {
        this.current = {};
        if (this.messageDepth === 2) this.messages.pop();
        this.messages.push(this.current);
      }
      this.open(b === 0x7b ? OBJECT : ARRAY);
      return;
    }
    this.value = this.member !== null ? [] : null;
    if (b === 0x22) {
      this.strIsKey = false;
      this.keep(b);
      this.state = S.Str;
    } else if (b === 0x74 || b === 0x66 || b === 0x6e) {
      this.literal = b === 0x74 ? "true" : b === 0x66 ? "false" : "null";
      this.literalAt = 1;
      this.keep(b);
      this.state = S.Lit;
    } else if (b === 0x2d || (b >= 0x30 && b <= 0x39)) {
      this.keep(b);
      this.state = b === 0x2d ? S.Minus : b === 0x30 ? S.Zero : S.Int;
    } else this.fail();
  }

  private inString(b: number): void {
    if (b < 0x20) return this.fail(); // a control character must be escaped
    if (b === 0x22) {
      if (this.strIsKey) {
        this.strIsKey = false;
        this.state = S.Colon;
        return;
      }
      this.keep(b);
      return this.endScalar();
    }
    this.keep(b);
    if (b === 0x5c) this.state = S.Esc;
  }

  /** One more byte of a number; `false` when the byte is not part of it. */
  private inNumber(b: number): boolean {
    const digit = b >= 0x30 && b <= 0x39;
    let next: S | null = null;
    switch (this.state) {
      case S.Minus:
        next = b === 0x30 ? S.Zero : digit ? S.Int : null;
        break;
      case S.Zero:
      case S.Int:
        next = digit && this.state === S.Int ? S.Int : b === 0x2e ? S.Dot : b === 0x65 || b === 0x45 ? S.Exp : null;
        break;
      case S.Dot:
      case S.Frac:
        next = digit ? S.Frac : this.state === S.Frac && (b === 0x65 || b === 0x45) ? S.Exp : null;
        break;
      case S.Exp:
        next = digit ? S.ExpInt : b === 0x2b || b === 0x2d ? S.ExpSign : null;
        break;
      default: // ExpSign, ExpInt
        next = digit ? S.ExpInt : null;
    }
    if (next === null) return false;
    this.keep(b);
    this.state = next;
    return true;
  }

  /** A byte of the current key or member value, while it is short enough to be one of ours. */
  private keep(b: number): void {
    if (this.strIsKey) {
      if (this.key === null) return;
      if (this.key.length < KEY_BYTES) this.key.push(b);
      else this.key = null; // too long to be one of the three names
      return;
    }
    if (this.value === null) return;
    if (this.value.length < MEMBER_BYTES) this.value.push(b);
    else {
      this.value = null;
      this.setMember({}); // too long to be read: kept as what no request has
    }
  }

  private endScalar(): void {
    if (this.value !== null) this.setMember(JSON.parse(new TextDecoder().decode(new Uint8Array(this.value))));
    this.value = null;
    this.member = null;
    this.state = this.depth === 0 ? S.Done : S.After;
  }

  private memberOfKey(): string | null {
    if (this.key === null) return null;
    const name: unknown = JSON.parse(`"${new TextDecoder().decode(new Uint8Array(this.key))}"`);
    this.key = null;
    return typeof name === "string" && MEMBERS.has(name) ? name : null;
  }

  /** The member being read gets `value`: the last of a repeated key wins, as in `JSON.parse`. */
  private setMember(value: unknown): void {
    if (this.member !== null && this.current !== null) this.current[this.member] = value;
    this.member = null;
  }

  private open(kind: number): void {
    if (this.depth === this.stack.length) {
      const grown = new Uint8Array(this.stack.length * 2);
      grown.set(this.stack);
      this.stack = grown;
    }
    this.stack[this.depth] = kind;
    this.depth += 1;
    this.state = kind === OBJECT ? S.KeyOrClose : S.ValueOrClose;
  }

  private close(kind: number): void {
    this.depth -= 1;
    if (kind === OBJECT && this.depth === this.messageDepth - 1) this.current = null;
    this.state = this.depth === 0 ? S.Done : S.After;
  }

  private fail(): void {
    this.state = S.Failed;
  }
}

function isHex(b: number): boolean {
  return (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x46) || (b >= 0x61 && b <= 0x66);
}

function isNumberEnd(state: S): boolean {
  return state === S.Zero || state === S.Int || state === S.Frac || state === S.ExpInt;
}
