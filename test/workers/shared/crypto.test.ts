/** src/shared/crypto.ts against published vectors (FIPS 180-4 examples) and its own shapes. */
import { describe, expect, it } from "vitest";
import { fromHex, randomBytes, randomId, sha256, sha256Hex, toHex } from "../../../src/shared/crypto";

describe("sha256", () => {
  it('matches FIPS 180-4 for "abc" and the empty string', async () => {
    expect(await sha256Hex("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    expect(await sha256Hex("")).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    expect((await sha256("abc")).length).toBe(32);
  });

  it("a shortened key is the digest's first bytes", async () => {
    expect(await sha256Hex("abc", 16)).toBe("ba7816bf8f01cfea414140de5dae2223");
  });

  it("hashes UTF-8", async () => {
    expect(await sha256Hex("☃")).toBe(toHex(await sha256("\u2603")));
  });
});

describe("hex", () => {
  it("encodes every byte as two lower-case digits, and decodes back", () => {
    const all = Uint8Array.from({ length: 256 }, (_, i) => i);
    const hex = toHex(all);
    expect(hex).toMatch(/^[0-9a-f]{512}$/);
    expect(hex.slice(0, 6)).toBe("000102");
    expect(fromHex(hex, 256)).toEqual(all);
    expect(fromHex(hex.toUpperCase(), 256)).toEqual(all);
    expect(toHex(all, 254, 256)).toBe("feff");
  });

  it("refuses the wrong length or a non-hex character", () => {
    expect(fromHex("abc", 2)).toBeNull();
    expect(fromHex("zz", 1)).toBeNull();
    expect(fromHex("ab", 2)).toBeNull();
  });
});

describe("random", () => {
  it("ids are 32 lower-case hex characters and differ", () => {
    const ids = new Set(Array.from({ length: 100 }, () => randomId()));
    expect(ids.size).toBe(100);
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{32}$/);
    expect(randomBytes(32).length).toBe(32);
  });
});
