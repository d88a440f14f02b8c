// Errors made by another copy of the client's module (a production bundle may hold two) are still
// recognised by class, so a platform 404 is read as not found rather than as an unknown error.
import { describe, expect, it, vi } from "vitest";
import * as mine from "@inlay/core/platform-client/errors";
import { chatErrorFrom } from "@inlay/core/chat/errors";

async function anotherCopy(): Promise<typeof mine> {
  vi.resetModules();
  const copy = await import("@inlay/core/platform-client/errors");
  expect(copy.NotFoundError).not.toBe(mine.NotFoundError);
  return copy;
}

describe("errors from another copy of the module", () => {
  it("are instances of the matching classes and their parents, and of no other", async () => {
    const copy = await anotherCopy();
    const notFound = new copy.NotFoundError({ message: "run 1 not found", status: 404 });
    expect(notFound).toBeInstanceOf(mine.NotFoundError);
    expect(notFound).toBeInstanceOf(mine.PlatformApiError);
    expect(notFound).not.toBeInstanceOf(mine.ConflictError);
    const timeout = new copy.ConnectionTimeoutError(5);
    expect(timeout).toBeInstanceOf(mine.ConnectionError);
    expect(timeout).toBeInstanceOf(mine.PlatformApiError);
    expect(new copy.ConnectionError()).not.toBeInstanceOf(mine.ConnectionTimeoutError);
    // Look-alikes without the brand are not.
    expect(Object.assign(new Error("x"), { name: "NotFoundError" })).not.toBeInstanceOf(mine.NotFoundError);
    expect(mine.isRefusal(notFound)).toBe(true);
  });

  it("keep their meaning in the chat", async () => {
    const copy = await anotherCopy();
    expect(chatErrorFrom(new copy.NotFoundError({ message: "gone", status: 404 })).kind).toBe("not_found");
    expect(chatErrorFrom(new copy.ConflictError({ message: "already cancelled", status: 409 })).kind).toBe("conflict");
  });
});
