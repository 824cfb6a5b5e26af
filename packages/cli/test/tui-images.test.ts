/** Images for a message: which bytes are accepted, and which pasted text names image files. */
import { homedir } from "node:os";
import { describe, expect, it } from "vitest";
import {
  ImageAttachError,
  imageFromBytes,
  MAX_IMAGE_BYTES,
  pastedImagePaths,
  sniffImageType,
} from "../src/tui/input/images.js";

const bytes = (head: string, rest = 16) =>
  Buffer.concat([Buffer.from(head, "latin1"), Buffer.alloc(rest, 7)]);

describe("image bytes", () => {
  it("tells the accepted formats by their signature, whatever the name says", () => {
    expect(sniffImageType(bytes("\x89PNG\r\n\x1a\n"))).toBe("image/png");
    expect(sniffImageType(bytes("\xff\xd8\xff\xe0"))).toBe("image/jpeg");
    expect(sniffImageType(bytes("GIF89a"))).toBe("image/gif");
    expect(sniffImageType(bytes("RIFF\x10\x00\x00\x00WEBPVP8 "))).toBe("image/webp");
    expect(sniffImageType(bytes("RIFF\x10\x00\x00\x00WAVEfmt "))).toBeUndefined();
    expect(sniffImageType(bytes("BM"))).toBeUndefined();
    const jpeg = imageFromBytes(bytes("\xff\xd8\xff\xe0"), "photo.png");
    expect(jpeg.mediaType).toBe("image/jpeg");
    expect(Buffer.from(jpeg.data, "base64").equals(bytes("\xff\xd8\xff\xe0"))).toBe(true);
  });

  it("refuses empty, oversized and unsupported images with a structured reason", () => {
    const refused = (data: Buffer, source: string) => {
      try {
        imageFromBytes(data, source);
      } catch (error) {
        expect(error).toBeInstanceOf(ImageAttachError);
        return [(error as ImageAttachError).problem, (error as Error).message];
      }
      return undefined;
    };
    expect(refused(Buffer.alloc(0), "clipboard")).toEqual(["empty", "clipboard: the image is empty"]);
    expect(refused(Buffer.alloc(MAX_IMAGE_BYTES + 1, 1), "big.png")?.[0]).toBe("too_large");
    expect(refused(bytes("II*\x00"), "scan.tiff")).toEqual([
      "unsupported_format",
      "scan.tiff: TIFF images cannot be attached; PNG, JPEG, GIF and WebP can",
    ]);
  });
});

describe("pasted paths", () => {
  it("reads quoted, escaped, file:// and ~ paths; several words when each is an image", () => {
    expect(pastedImagePaths("'/tmp/my shot.png'", "/p")).toEqual({
      whole: "/tmp/my shot.png",
      words: ["/tmp/my shot.png"],
    });
    expect(pastedImagePaths("/tmp/my\\ shot.png", "/p")?.words).toEqual(["/tmp/my shot.png"]);
    expect(pastedImagePaths("file:///tmp/a%20b.jpg", "/p")?.words).toEqual(["/tmp/a b.jpg"]);
    expect(pastedImagePaths("~/Desktop/s.webp", "/p")?.words).toEqual([`${homedir()}/Desktop/s.webp`]);
    expect(pastedImagePaths("shots/a.png  b.gif", "/p")?.words).toEqual(["/p/shots/a.png", "/p/b.gif"]);
    // Unescaped spaces: only the whole text is a candidate (taken when that file exists).
    expect(pastedImagePaths("/tmp/my shot.png", "/p")).toEqual({
      whole: "/tmp/my shot.png",
      words: undefined,
    });
    expect(pastedImagePaths("just some text", "/p")).toBeUndefined();
    expect(pastedImagePaths("a.png\nb.png", "/p")).toBeUndefined();
    expect(pastedImagePaths("notes.txt", "/p")).toBeUndefined();
  });
});
